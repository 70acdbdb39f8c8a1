import { readSettings } from '../core/config/settings.ts';
import { buildApp } from '../http/build-app.ts';
import { serverLimitsFromSettings } from '../http/server-limits.ts';
import { ensureInitialKey } from '../platform/ensure-initial-key.ts';
import { openPlatform } from '../platform/open-platform.ts';
import type { CliFlags } from './cli-flags.ts';
import { exitAfterShutdown } from './exit-after-shutdown.ts';
import { startupBanner } from './startup-banner.ts';

export interface ServeFlags extends CliFlags {
  /** API only: tasks are run by `model-platform worker` processes on the same database. */
  readonly 'no-workers'?: boolean | undefined;
}

/** Starts the server; SIGINT/SIGTERM stop taking connections, let in-flight requests finish, then exit. */
export async function runServe(flags: ServeFlags): Promise<number> {
  const settings = readSettings(process.env, flags);
  const platform = await openPlatform(settings, process.env);
  await ensureInitialKey(platform, (line) => console.log(line));
  if (flags['no-workers'] !== true) platform.startWorkers();
  const app = await buildApp({ ...platform, logger: { level: process.env['LOG_LEVEL'] ?? 'info' } }, serverLimitsFromSettings(settings));
  const address = await app.listen({ port: settings.port, host: settings.host });
  const banner = startupBanner({ address, publicUrl: settings.publicUrl, config: platform.config });
  app.log.info(banner.fields, banner.message);
  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      app.log.info({ signal }, 'shutting down: waiting for in-flight requests');
      app
        .close()
        .then(() => platform.close())
        .then(
          () => resolve(exitAfterShutdown(0, (message) => app.log.warn(message))),
          (error: unknown) => {
            app.log.error({ err: error }, 'shutdown failed');
            resolve(exitAfterShutdown(1, (message) => app.log.warn(message)));
          },
        );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
