import { readSettings } from '../core/config/settings.ts';
import { openPlatform, type Platform } from '../platform/open-platform.ts';
import type { CliFlags } from './cli-flags.ts';

/** Opens the platform for a one-shot command and always closes it. */
export async function withPlatform<Result>(flags: CliFlags, work: (platform: Platform) => Promise<Result>): Promise<Result> {
  const platform = await openPlatform(readSettings(process.env, flags), process.env);
  try {
    return await work(platform);
  } finally {
    await platform.close();
  }
}
