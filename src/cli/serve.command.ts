import { readSettings, type Settings } from '../core/config/settings.ts';
import type { App } from '../http/app-types.ts';
import { buildApp } from '../platform/build-app.ts';
import { serverLimitsFromSettings } from '../http/server-limits.ts';
import { ensureInitialKey } from '../platform/ensure-initial-key.ts';
import { openPlatform, type Platform } from '../platform/open-platform.ts';
import type { CliFlags } from './cli-flags.ts';
import { exitAfterShutdown } from './exit-after-shutdown.ts';
import { openMetricsWarning } from '../http/metrics.route.ts';
import { startupBanner } from './startup-banner.ts';
import { startBackgroundDownloads } from '../platform/model-files/background-downloads.ts';

export interface ServeFlags extends CliFlags {
  /** API only: tasks are run by `model-platform worker` processes on the same database. */
  readonly 'no-workers'?: boolean | undefined;
}

/** Starts the server; SIGINT/SIGTERM stop taking connections, let in-flight requests finish, then exit. */
export async function runServe(flags: ServeFlags): Promise<number> {
  const settings = readSettings(process.env, flags);
  const platform = await openPlatform(settings, process.env);
  const { app, address } = await startListening(platform, flags, settings).catch(async (error: unknown) => {
    // A start that fails (the port is taken) closes what it opened, so the process ends with the error.
    await platform.close();
    throw error;
  });
  const banner = startupBanner({ address, publicUrl: settings.publicUrl, config: platform.config });
  app.log.info(banner.fields, banner.message);
  const metricsWarning = openMetricsWarning(settings.host, platform.metrics.scrapeToken);
  if (metricsWarning !== undefined) app.log.warn(metricsWarning);
  for (const hint of await firstHourHints(platform)) app.log.info(hint);
  // The catalog's missing model files, fetched after the server listens: everything else serves meanwhile.
  const downloads = settings.pullOnStart ? startBackgroundDownloads(platform.modelFiles, platform.modelFileUris, platform.logger) : undefined;
  if (downloads === undefined) {
    for (const uri of platform.modelFileUris) {
      const reason = platform.modelFiles.notReadyReason(uri);
      if (reason !== undefined) app.log.warn({ uri }, `MODEL_PLATFORM_PULL=off: the platform ${reason}`);
    }
  }
  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      app.log.info({ signal }, 'shutting down: waiting for in-flight requests');
      app
        .close()
        .then(() => downloads?.stop())
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

async function startListening(platform: Platform, flags: ServeFlags, settings: Settings): Promise<{ app: App; address: string }> {
  await ensureInitialKey(platform, (line) => console.log(line));
  if (flags['no-workers'] !== true) platform.startWorkers();
  // The platform's logger (LOG_LEVEL): request lines and background failures in one JSON stream.
  const app = await buildApp(platform, serverLimitsFromSettings(settings));
  try {
    return { app, address: await app.listen({ port: settings.port, host: settings.host }) };
  } catch (error) {
    await app.close();
    throw error;
  }
}

/** What a first start needs to hear: an empty search index and how to fill it. */
async function firstHourHints(platform: Platform): Promise<string[]> {
  const hints: string[] = [];
  if ((await platform.searchIndex.count()) === 0) {
    hints.push('The local search index is empty: web search answers nothing until pages are added with `model-platform index add <url|file|dir|sitemap>`.');
  }
  return hints;
}
