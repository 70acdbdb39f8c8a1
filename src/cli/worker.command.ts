import { readSettings } from '../core/config/settings.ts';
import { openMetricsWarning } from '../http/metrics.route.ts';
import { startOpsServer } from '../http/ops-server.ts';
import { serverLimitsFromSettings } from '../http/server-limits.ts';
import { openPlatform } from '../platform/open-platform.ts';
import type { CliFlags } from './cli-flags.ts';
import { exitAfterShutdown } from './exit-after-shutdown.ts';

/**
 * Runs task workers without the HTTP server: scale them apart from the API nodes (`serve
 * --no-workers`) on a shared database, with REDIS_URL for BullMQ. SIGINT/SIGTERM hand running
 * tasks back to the queue, then exit. With `--port N` it also serves /healthz, /readyz and /metrics
 * on that port (only with the flag: a worker takes no PORT from the environment it may share with serve).
 */
export async function runWorker(flags: CliFlags): Promise<number> {
  const settings = readSettings(process.env, flags);
  const platform = await openPlatform(settings, process.env);
  platform.startWorkers();
  const queue = platform.tasks.mode === 'bullmq' ? 'BullMQ on Redis' : `embedded queue on ${platform.database.dialect}`;
  const ops =
    flags.port === undefined ? undefined : await startOpsServer(platform, { port: settings.port, host: settings.host }, serverLimitsFromSettings(settings));
  const opsLine = ops === undefined ? '' : ` Health and metrics on port ${settings.port}.`;
  console.log(`Task worker started: ${queue}, up to ${settings.workerConcurrency} tasks at once.${opsLine}`);
  const metricsWarning = ops === undefined ? undefined : openMetricsWarning(settings.host, platform.metrics.scrapeToken);
  if (metricsWarning !== undefined) platform.logger.warn(metricsWarning);
  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      console.log(`${signal}: stopping; running tasks go back to the queue.`);
      (ops?.close() ?? Promise.resolve())
        .then(() => platform.close())
        .then(
          () => resolve(exitAfterShutdown(0, (message) => platform.logger.warn(message))),
          (error: unknown) => {
            platform.logger.error({ err: error }, 'worker shutdown failed');
            resolve(exitAfterShutdown(1, (message) => platform.logger.warn(message)));
          },
        );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
