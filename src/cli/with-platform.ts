import { readSettings } from '../core/config/settings.ts';
import { createLogger } from '../platform/create-logger.ts';
import { openPlatform, type Platform } from '../platform/open-platform.ts';
import type { CliFlags } from './cli-flags.ts';

/**
 * Opens the platform for a one-shot command and always closes it. Its log lines go to stderr:
 * stdout is the command's answer (a new key, a report), which scripts read.
 */
export async function withPlatform<Result>(flags: CliFlags, work: (platform: Platform) => Promise<Result>): Promise<Result> {
  const platform = await openPlatform(readSettings(process.env, flags), process.env, { logger: createLogger(process.env, process.stderr) });
  try {
    return await work(platform);
  } finally {
    await platform.close();
  }
}
