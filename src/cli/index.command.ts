import { ingestItems } from '../tools/search-ingest/search-ingester.ts';
import { expandSources, type FetchBytes } from '../tools/search-ingest/ingest-sources.ts';
import { GuardedFetcher } from '../tools/fetch/guarded-fetcher.ts';
import { SsrfGuard } from '../tools/fetch/ssrf-guard.ts';
import type { CliFlags } from './cli-flags.ts';
import { withPlatform } from './with-platform.ts';

const usage = 'Usage: model-platform index add <url|file|dir|sitemap>... [--refresh] [--base-url URL] | index remove <url|prefix*>';

/** Sitemaps can list 50,000 URLs (about 10 MB of XML); larger ones are split by their sites. */
const largestSitemapBytes = 64 * 1024 * 1024;
const sitemapTimeoutMs = 60_000;
/** Pages read at once through the reader. */
const readConcurrency = 4;

export interface IndexFlags extends CliFlags {
  readonly refresh?: boolean | undefined;
  /** index add: the http(s) URL at which the folders named are served, instead of file:// links. */
  readonly 'base-url'?: string | undefined;
}

/**
 * `index add` fills the local search index from pages, sitemaps, files and directories, with a
 * progress bar on stderr; an interrupted run keeps what it stored and a re-run skips it.
 * Exit code 1 when any item failed (the others are indexed all the same). `--base-url` lists
 * local files under the URL their folder is served at, not as file:// links no client can open.
 * `index remove` removes one URL or every URL under a prefix ending in `*`.
 */
export async function runIndex(args: readonly string[], flags: IndexFlags): Promise<number> {
  const [action, ...targets] = args;
  const baseUrl = flags['base-url'];
  if (baseUrl !== undefined && !isHttpUrl(baseUrl)) {
    console.error(`--base-url must be an absolute http(s) URL, such as https://docs.example.com/guide (got '${baseUrl}')`);
    console.error(usage);
    return 2;
  }
  if (action === 'add' && targets.length > 0) return addToIndex(targets, flags);
  if (action === 'remove' && targets.length === 1 && targets[0] !== undefined) return removeFromIndex(targets[0], flags);
  console.error(usage);
  return 2;
}

function addToIndex(sources: readonly string[], flags: IndexFlags): Promise<number> {
  return withPlatform(flags, async (platform) => {
    const controller = new AbortController();
    // Ctrl-C stops reading; every page already stored stays (each is stored as soon as it is read).
    const interrupt = () => controller.abort(new Error('interrupted'));
    process.once('SIGINT', interrupt);
    const fetcher = new GuardedFetcher({
      guard: new SsrfGuard({ allow: platform.config.fetch?.allow ?? [] }),
      maxBytes: largestSitemapBytes,
      userAgent: 'model-platform-indexer',
    });
    const fetchBytes: FetchBytes = async (url, signal) => {
      const fetched = await fetcher.fetch(url, { timeoutMs: sitemapTimeoutMs, signal });
      if (fetched.status < 200 || fetched.status > 299) throw new Error(`the sitemap answered HTTP ${fetched.status}`);
      return fetched.body;
    };
    try {
      const { items, errors } = await expandSources(sources, fetchBytes, controller.signal);
      for (const error of errors) console.error(`failed: ${error.source}: ${error.message}`);
      const summary = await ingestItems(
        items,
        { index: platform.searchIndex, reader: platform.reader, progress: process.stderr },
        { refresh: flags.refresh === true, baseUrl: flags['base-url'], concurrency: readConcurrency, signal: controller.signal },
      );
      const failed = summary.failed + errors.length;
      const total = await platform.searchIndex.count();
      console.log(`Indexed ${summary.indexed}, skipped ${summary.skipped} already indexed, failed ${failed}. The index holds ${documents(total)}.`);
      return failed > 0 ? 1 : 0;
    } catch (error) {
      if (!controller.signal.aborted) throw error;
      console.error(`Interrupted. The index holds ${documents(await platform.searchIndex.count())}; run the same command again to go on.`);
      return 130;
    } finally {
      process.removeListener('SIGINT', interrupt);
      await fetcher.close();
    }
  });
}

function removeFromIndex(target: string, flags: IndexFlags): Promise<number> {
  return withPlatform(flags, async (platform) => {
    const removed = await platform.searchIndex.remove(target);
    const total = await platform.searchIndex.count();
    if (removed === 0) {
      console.error(`No indexed document matches ${target}. The index holds ${documents(total)}.`);
      return 1;
    }
    console.log(`Removed ${documents(removed)}. The index holds ${documents(total)}.`);
    return 0;
  });
}

/** An absolute http(s) URL without credentials, query or fragment: file URLs are appended to it. */
function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '' && url.search === '' && url.hash === '';
}

function documents(count: number): string {
  return `${count} document${count === 1 ? '' : 's'}`;
}
