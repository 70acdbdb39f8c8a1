import type { PlatformConfig } from '../../core/config/config.schema.ts';
import type { WebReader } from '../../core/web/web-reader.ts';
import type { Database } from '../../store/database.ts';
import { ReaderCacheRepository } from '../../store/reader-cache-repository.ts';
import { GuardedFetcher } from '../fetch/guarded-fetcher.ts';
import { SsrfGuard, type HostResolver } from '../fetch/ssrf-guard.ts';
import { PageRenderer } from './page-renderer.ts';
import { WebPageReader } from './web-page-reader.ts';

/** The reader the platform owns: it holds a connection pool and, when rendering, a browser. */
export type ClosableWebReader = WebReader & { close(): Promise<void> };

export interface WebReaderSetup {
  readonly database: Database;
  readonly config: PlatformConfig;
  /** The platform's data directory (the reader keeps nothing there today: its cache is a table). */
  readonly dataDir: string;
  /** Tests map host names at will; the default asks the system resolver. */
  readonly resolve?: HostResolver;
  /** Tests move the clock to expire cached pages. */
  readonly now?: () => number;
  /** Where failures the reader survives are logged (its cache, a page that would not render). */
  readonly log: (message: string, error: unknown) => void;
}

const readerDefaults = {
  maxBytes: 20 * 1024 * 1024,
  cacheTtlSeconds: 3600,
  chromiumPath: '/usr/bin/chromium',
  userAgent: 'Mozilla/5.0 (compatible; model-platform-reader/0.1; +https://github.com/model-platform)',
} as const;

/** The zero-configuration web reader, tuned by the config's `reader` and `fetch.allow`. */
export function createWebReader(setup: WebReaderSetup): ClosableWebReader {
  const settings = setup.config.reader ?? {};
  const userAgent = settings.userAgent ?? readerDefaults.userAgent;
  const guard = new SsrfGuard({ allow: setup.config.fetch?.allow ?? [], ...(setup.resolve === undefined ? {} : { resolve: setup.resolve }) });
  const fetcher = new GuardedFetcher({ guard, maxBytes: settings.maxBytes ?? readerDefaults.maxBytes, userAgent });
  const renderer =
    settings.render === true ? new PageRenderer(fetcher, { executablePath: settings.chromiumPath ?? readerDefaults.chromiumPath, userAgent }) : undefined;
  const reader = new WebPageReader({
    fetcher,
    cache: new ReaderCacheRepository(setup.database),
    cacheTtlMs: (settings.cacheTtlSeconds ?? readerDefaults.cacheTtlSeconds) * 1000,
    renderer,
    warn: setup.log,
    ...(setup.now === undefined ? {} : { now: setup.now }),
  });
  return {
    read: (url, options) => reader.read(url, options),
    async close() {
      await renderer?.close();
      await fetcher.close();
    },
  };
}
