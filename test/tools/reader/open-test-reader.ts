import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlatformConfig } from '../../../src/core/config/config.schema.ts';
import type { ReadOptions } from '../../../src/core/web/web-reader.ts';
import { openDatabase, type Database } from '../../../src/store/database.ts';
import { migrateToLatest } from '../../../src/store/migrate.ts';
import type { HostResolver } from '../../../src/tools/fetch/ssrf-guard.ts';
import { createWebReader, type ClosableWebReader } from '../../../src/tools/reader/create-web-reader.ts';

export interface TestReader {
  readonly reader: ClosableWebReader;
  readonly database: Database;
  close(): Promise<void>;
}

/** The platform's reader on a fresh, migrated database (SQLite in a temp dir unless a URL is given). */
export async function openTestReader(
  config: PlatformConfig,
  options: { databaseUrl?: string | undefined; resolve?: HostResolver; now?: () => number } = {},
): Promise<TestReader> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reader-test-'));
  const database = openDatabase({ databaseUrl: options.databaseUrl, dataDir });
  await migrateToLatest(database);
  const reader = createWebReader({
    database,
    config,
    dataDir,
    log: (message, error) => console.warn(message, error),
    ...(options.resolve === undefined ? {} : { resolve: options.resolve }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  return {
    reader,
    database,
    async close() {
      await reader.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** ReadOptions with the platform defaults (timeout shortened for tests), overridden as given. */
export function readOptions(overrides: Partial<ReadOptions> = {}): ReadOptions {
  return {
    timeoutMs: 5_000,
    noCache: false,
    returnFormat: 'markdown',
    retainImages: true,
    noGfm: false,
    keepImgDataUrl: false,
    withImagesSummary: false,
    withLinksSummary: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}
