import { KeyAdmin, type KeyView } from '../platform/key-admin.ts';
import { SecretBox } from '../core/auth/secret-box.ts';
import { ApiError } from '../core/errors/api-error.ts';
import { ApiKeyRepository } from '../store/api-key-repository.ts';
import { CreditRepository } from '../store/credit-repository.ts';
import { loadMasterKey } from '../store/master-key.ts';
import { UsageReportRepository } from '../store/usage/usage-report-repository.ts';
import type { CliFlags } from './cli-flags.ts';
import { alignedTable } from './aligned-table.ts';
import { groupUsage } from './cli-usage.ts';
import { withDatabase } from './with-database.ts';

/** `keys ...`: the same KeyAdmin operations as the admin API (/admin/keys). */
export async function runKeys(args: readonly string[], flags: CliFlags): Promise<number> {
  const [action, id, policyText] = args;
  switch (action) {
    case 'create': {
      const policy = readPolicy(flags.policy, flags.admin === true);
      if (policy instanceof Error) return fail(policy.message);
      return withKeyAdmin(flags, (keyAdmin) =>
        reportingErrors(async () => {
          const created = await keyAdmin.create({ name: flags.name, policy });
          console.log(created.key);
          return 0;
        }),
      );
    }
    case 'list':
      return withKeyAdmin(flags, async (keyAdmin) => {
        const keys = await keyAdmin.list();
        console.log(keys.length === 0 ? 'No API keys.' : keyTable(keys));
        return 0;
      });
    case 'revoke':
      if (id === undefined) return fail(groupUsage('keys'));
      return withKeyAdmin(flags, async (keyAdmin) => {
        if (await keyAdmin.revoke(id)) {
          console.log(`Revoked ${id}.`);
          return 0;
        }
        console.error(`No active key with id ${id}.`);
        return 1;
      });
    case 'policy': {
      if (id === undefined || policyText === undefined) return fail(groupUsage('keys'));
      const policy = readPolicy(policyText, false);
      if (policy instanceof Error) return fail(policy.message);
      return withKeyAdmin(flags, (keyAdmin) =>
        reportingErrors(async () => {
          const view = await keyAdmin.updatePolicy(id, policy ?? {});
          if (view === undefined) {
            console.error(`No key with id ${id}.`);
            return 1;
          }
          console.log(keyTable([view]));
          return 0;
        }),
      );
    }
    case 'top-up': {
      // Whole micro-units only: a typo must not become a fraction of money.
      if (id === undefined || policyText === undefined || !/^[1-9]\d{0,15}$/.test(policyText) || !Number.isSafeInteger(Number(policyText))) {
        return fail(`${groupUsage('keys')}\nkeys top-up <id> <micro-units>: a whole number of micro-units above 0 (1 unit = 1000000)`);
      }
      const amount = Number(policyText);
      return withKeyAdmin(flags, (keyAdmin) =>
        reportingErrors(async () => {
          const view = await keyAdmin.topUp(id, amount);
          if (view === undefined) {
            console.error(`No key with id ${id}.`);
            return 1;
          }
          console.log(`Added ${amount} micro-units to ${id}: the balance is ${view.policy?.credit?.balance ?? 0}.`);
          return 0;
        }),
      );
    }
    default:
      return fail(groupUsage('keys'));
  }
}

/**
 * The KeyAdmin the platform builds, over the database alone: a key command needs no engine or
 * limiter. This process caches no keys, so a change has nothing to tell; a running server's auth
 * cache lets a changed key go within its expiry, as after an admin API call on another node.
 */
function withKeyAdmin(flags: CliFlags, work: (keyAdmin: KeyAdmin) => Promise<number>): Promise<number> {
  return withDatabase(flags, (database, settings) => {
    const keys = new ApiKeyRepository(database, new SecretBox(loadMasterKey(settings.dataDir, process.env)));
    return work(new KeyAdmin({ keys, credits: new CreditRepository(database), reports: new UsageReportRepository(database), changed: () => undefined }));
  });
}

const keyColumns = ['id', 'created', 'state', 'name', 'scope', 'policy'] as const;

/** A key's cells under keyColumns: never its secret. */
function keyCells(key: KeyView): string[] {
  const state = key.revokedAt === null ? 'active' : `revoked ${new Date(key.revokedAt).toISOString()}`;
  const { scope, ...limits } = key.policy ?? {};
  const policy = Object.keys(limits).length === 0 ? '' : JSON.stringify(limits);
  return [key.id, new Date(key.createdAt).toISOString(), state, key.name ?? '', scope ?? 'user', policy];
}

/** A header row, then one row per key, columns aligned two spaces apart. */
function keyTable(keys: readonly KeyView[]): string {
  return alignedTable([[...keyColumns], ...keys.map(keyCells)]);
}

function readPolicy(text: string | undefined, admin: boolean): Record<string, unknown> | undefined | Error {
  let policy: unknown;
  try {
    policy = text === undefined ? undefined : JSON.parse(text);
  } catch (error) {
    return new Error(`The policy is not JSON: ${(error as Error).message}`);
  }
  if (policy !== undefined && (policy === null || typeof policy !== 'object' || Array.isArray(policy))) return new Error('The policy must be a JSON object.');
  const object = policy as Record<string, unknown> | undefined;
  return admin ? { ...object, scope: 'admin' } : object;
}

/** A refused policy is the operator's mistake: its message, exit code 2. */
async function reportingErrors(work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) return fail(error.message);
    throw error;
  }
}

function fail(message: string): number {
  console.error(message);
  return 2;
}
