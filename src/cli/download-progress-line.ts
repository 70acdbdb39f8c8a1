import { describeProgress } from '../platform/model-files/model-files.ts';
import type { DownloadProgress } from '../platform/model-files/download-hub-file.ts';

/**
 * Progress of one download on stderr: a bar redrawn in place on a terminal, else a line at each
 * tenth (logs and CI keep every line).
 */
export function downloadProgressLine(uri: string, stream: NodeJS.WriteStream = process.stderr): { update(progress: DownloadProgress): void; end(): void } {
  let lastTenth = -1;
  return {
    update(progress) {
      const { downloadedBytes, totalBytes } = progress;
      const fraction = totalBytes === undefined || totalBytes === 0 ? 0 : Math.min(1, downloadedBytes / totalBytes);
      if (stream.isTTY) {
        const width = 30;
        const filled = Math.round(fraction * width);
        stream.write(`\r${uri} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${describeProgress(progress)}   `);
        return;
      }
      const tenth = Math.floor(fraction * 10);
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      stream.write(`${uri}: ${describeProgress(progress)}\n`);
    },
    end() {
      if (stream.isTTY) stream.write('\n');
    },
  };
}
