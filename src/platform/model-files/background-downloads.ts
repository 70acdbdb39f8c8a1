import type { PlatformLogger } from '../create-logger.ts';
import { describeProgress, formatBytes, type ModelFiles } from './model-files.ts';
import { HubFileError } from './hub-file-metadata.ts';

/**
 * Fetches the catalog's missing hf:// files one after another, off the start-up path: the server
 * serves everything else meanwhile, and a model whose file is not in place answers what it waits
 * for. Progress is logged at each tenth. An unreachable hub is said once, and the remaining files
 * are left to `model-platform pull` (a running server uses a pulled file as soon as it is in place).
 */
export function startBackgroundDownloads(files: ModelFiles, uris: readonly string[], log: PlatformLogger): { stop(): Promise<void> } {
  const controller = new AbortController();
  const run = (async () => {
    for (const given of uris) {
      if (controller.signal.aborted) return;
      const { uri } = files.referenceOf(given);
      if (files.notReadyReason(uri) === undefined) continue;
      let lastTenth = -1;
      log.info({ uri }, `downloading ${uri} (once; progress here, in GET /readyz and GET /admin/model-files)`);
      try {
        const path = await files.fetch(
          uri,
          (progress) => {
            const tenth =
              progress.totalBytes === undefined || progress.totalBytes === 0 ? 0 : Math.floor((progress.downloadedBytes / progress.totalBytes) * 10);
            if (tenth === lastTenth) return;
            lastTenth = tenth;
            log.info({ uri, downloadedBytes: progress.downloadedBytes, totalBytes: progress.totalBytes }, `downloading ${uri}: ${describeProgress(progress)}`);
          },
          controller.signal,
        );
        const status = files.statusOf(files.referenceOf(uri));
        log.info({ uri, path }, `downloaded ${uri} (${formatBytes(status.bytes ?? 0)}) to ${path}`);
      } catch (error) {
        if (controller.signal.aborted) return;
        const reason = files.statusOf(files.referenceOf(uri)).error ?? String(error);
        if (error instanceof HubFileError && error.kind === 'unreachable') {
          log.warn({ uri }, `${reason}. Everything else serves; run \`model-platform pull <model>\` once the hub can be reached.`);
          return;
        }
        log.error({ uri }, reason);
      }
    }
  })();
  return {
    async stop() {
      controller.abort();
      await run;
    },
  };
}
