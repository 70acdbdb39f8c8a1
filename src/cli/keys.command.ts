import type { KeyView } from '../platform/key-admin.ts';
import { ApiError } from '../core/errors/api-error.ts';
import type { CliFlags } from './cli-flags.ts';
import { alignedTable } from './aligned-table.ts';
import { groupUsage } from './cli-usage.ts';
import { withPlatform } from './with-platform.ts';

/** `keys ...`: the same KeyAdmin operations as the admin API (/admin/keys). */
export async function runKeys(args: readonly string[], flags: CliFlags): Promise<number> {
  const [action, id, policyText] = args;
  switch (action) {
    case 'create': {
      const policy = readPolicy(flags.policy, flags.admin === true);
      if (policy instanceof Error) return fail(policy.message);
      return withPlatform(flags, (platform) =>
        reportingErrors(async () => {
          const created = await platform.keyAdmin.create({ name: flags.name, policy });
          console.log(created.key);
          return 0;
        }),
      );
    }
    case 'list':
      return withPlatform(flags, async (platform) => {
        const keys = await platform.keyAdmin.list();
        console.log(keys.length === 0 ? 'No API keys.' : keyTable(keys));
        return 0;
      });
    case 'revoke':
      if (id === undefined) return fail(groupUsage('keys'));
      return withPlatform(flags, async (platform) => {
        if (await platform.keyAdmin.revoke(id)) {
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
      return withPlatform(flags, (platform) =>
        reportingErrors(async () => {
          const view = await platform.keyAdmin.updatePolicy(id, policy ?? {});
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
      return withPlatform(flags, (platform) =>
        reportingErrors(async () => {
          const view = await platform.keyAdmin.topUp(id, amount);
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
