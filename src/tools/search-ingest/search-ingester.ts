import type { IndexedDocument, SearchIndex } from '../../core/web/search-index.ts';
import type { WebReader } from '../../core/web/web-reader.ts';
import { messageOf, type IngestItem } from './ingest-sources.ts';
import { readLocalDocument } from './local-document.ts';
import { readPageDocument } from './page-document.ts';
import { ProgressBar, type ProgressOutput } from './progress-bar.ts';

export interface IngestDependencies {
  readonly index: SearchIndex;
  readonly reader: WebReader;
  /** Progress bar and per-item errors (stderr in the CLI). */
  readonly progress: ProgressOutput;
  readonly now?: () => number;
}

export interface IngestOptions {
  /** Index again what is already indexed (and bypass the reader's cache). */
  readonly refresh: boolean;
  /** The http(s) URL at which the folders of local files are served; undefined: files keep `file://` URLs. */
  readonly baseUrl?: string | undefined;
  /** Items read at once: pages wait on the network, so a few in flight keep it busy. */
  readonly concurrency: number;
  readonly signal: AbortSignal;
}

export interface IngestSummary {
  readonly indexed: number;
  readonly skipped: number;
  readonly failed: number;
}

/**
 * Reads each item and stores it in the index as soon as it is read, so an interrupted run keeps
 * everything finished before the interruption, and a second run skips it (unless `refresh`). A
 * failing item is reported on the progress output and counted; the run goes on.
 */
export async function ingestItems(items: readonly IngestItem[], dependencies: IngestDependencies, options: IngestOptions): Promise<IngestSummary> {
  const now = dependencies.now ?? Date.now;
  const bar = new ProgressBar(dependencies.progress, items.length);
  const counts = { indexed: 0, skipped: 0, failed: 0 };
  let done = 0;
  let next = 0;
  bar.update(0, counts);

  const ingestOne = async (item: IngestItem): Promise<'indexed' | 'skipped'> => {
    let document: IndexedDocument;
    if (item.kind === 'url') {
      if (!options.refresh && (await dependencies.index.has(item.url))) return 'skipped';
      document = await readPageDocument(dependencies.reader, item.url, options.refresh, options.signal, now());
    } else {
      // A file's key is known only once it is read (a saved page may state its own URL).
      document = await readLocalDocument(item, options.baseUrl, now());
      if (!options.refresh && (await dependencies.index.has(document.url))) return 'skipped';
    }
    // A page without text (a redirect stub, an empty file) would only match by its title.
    if (document.content.trim() === '') throw new Error('no text to index');
    await dependencies.index.upsert(document);
    return 'indexed';
  };

  const worker = async () => {
    while (next < items.length) {
      options.signal.throwIfAborted();
      const item = items[next] as IngestItem;
      next += 1;
      try {
        counts[await ingestOne(item)] += 1;
      } catch (error) {
        if (options.signal.aborted) throw error;
        counts.failed += 1;
        bar.note(`failed: ${item.kind === 'url' ? item.url : item.path}: ${messageOf(error)}`);
      }
      done += 1;
      bar.update(done, counts);
    }
  };
  // Every worker ends before the run does, so nothing writes to the index after it is closed.
  const workers = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(options.concurrency, items.length)) }, worker));
  bar.finish();
  const failure = workers.find((result) => result.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
  return { ...counts };
}
