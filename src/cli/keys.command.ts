import { formatApiKey } from '../core/auth/api-key.ts';
import type { CliFlags } from './cli-flags.ts';
import { withPlatform } from './with-platform.ts';

export async function runKeys(args: readonly string[], flags: CliFlags): Promise<number> {
  const [action, id] = args;
  switch (action) {
    case 'create':
      return withPlatform(flags, async (platform) => {
        const key = await platform.keys.create({ name: flags.name });
        console.log(formatApiKey(key));
        return 0;
      });
    case 'list':
      return withPlatform(flags, async (platform) => {
        const keys = await platform.keys.list();
        if (keys.length === 0) console.log('No API keys.');
        for (const key of keys) {
          const state = key.revokedAt === null ? 'active' : `revoked ${new Date(key.revokedAt).toISOString()}`;
          console.log(`${key.id}  ${new Date(key.createdAt).toISOString()}  ${state}  ${key.name ?? ''}`.trimEnd());
        }
        return 0;
      });
    case 'revoke':
      if (id === undefined) {
        console.error('Usage: model-platform keys revoke <id>');
        return 2;
      }
      return withPlatform(flags, async (platform) => {
        if (await platform.revokeKey(id)) {
          console.log(`Revoked ${id}.`);
          return 0;
        }
        console.error(`No active key with id ${id}.`);
        return 1;
      });
    default:
      console.error('Usage: model-platform keys create [--name NAME] | keys list | keys revoke <id>');
      return 2;
  }
}
