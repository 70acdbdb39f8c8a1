import { formatApiKey, parseApiKey } from '../core/auth/api-key.ts';
import type { Platform } from './open-platform.ts';

/** The first key of a platform may manage the others (the admin API, /admin). */
const adminPolicy = { scope: 'admin' } as const;

/**
 * Start-up key rules: `MODEL_PLATFORM_BOOTSTRAP_KEY` is created when absent (scripts and CI know
 * their key in advance); otherwise, with no keys at all, one is created and printed once.
 */
export async function ensureInitialKey(platform: Platform, print: (line: string) => void): Promise<void> {
  const bootstrap = platform.settings.bootstrapKey;
  if (bootstrap !== undefined) {
    const parts = parseApiKey(bootstrap);
    if (parts === undefined) throw new Error('MODEL_PLATFORM_BOOTSTRAP_KEY: must have the form <id>.<secret>');
    const existing = await platform.keys.findKey(parts.id);
    if (existing === undefined) {
      await platform.keys.create({ name: 'bootstrap', key: parts, policy: adminPolicy });
      print(`Created the bootstrap API key ${parts.id} from MODEL_PLATFORM_BOOTSTRAP_KEY, an admin key.`);
    }
    return;
  }
  if ((await platform.keys.count()) > 0) return;
  const key = await platform.keys.create({ name: 'initial', policy: adminPolicy });
  print(
    'No API keys existed, so an admin key was created (it may call everything, /admin included, and create the other keys). It is shown only this once; keep it:\n\n' +
      `    ${formatApiKey(key)}\n\n` +
      'Use it as "Authorization: Bearer <key>". Give clients keys of their own, without admin: `model-platform keys create --name <who>`.',
  );
}
