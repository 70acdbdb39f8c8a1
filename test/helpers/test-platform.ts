import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatApiKey } from '../../src/core/auth/api-key.ts';
import type { PlatformConfig } from '../../src/core/config/config.schema.ts';
import { readSettings } from '../../src/core/config/settings.ts';
import { buildApp } from '../../src/platform/build-app.ts';
import type { App } from '../../src/http/app-types.ts';
import { openPlatform, type Platform } from '../../src/platform/open-platform.ts';
import type { PlatformLogger } from '../../src/platform/create-logger.ts';
import { writeFileSync } from 'node:fs';
import { ResponseContract } from './response-contract.ts';
import { stringify } from 'yaml';

export interface TestPlatform {
  readonly app: App;
  readonly platform: Platform;
  /** A valid key `<id>.<secret>`. */
  readonly key: string;
  /** `Bearer <key>`, ready for the Authorization header. */
  readonly authorization: string;
  /** Collects answers that break their response schemas; an app built beside this one reports to it too. */
  readonly contract: ResponseContract;
  close(): Promise<void>;
}

/** A test platform whose answers are checked against their response schemas; `close()` fails on a mismatch. */
export interface CheckedTestPlatform extends TestPlatform {
  readonly contract: ResponseContract;
}

/**
 * A real app on a fresh SQLite database in a temporary directory (or on PostgreSQL when
 * `databaseUrl` is given), with one key created. With `logger`, the app and the platform log
 * through it (captured-log.ts); without, the app logs nothing.
 */
export async function startTestPlatform(
  options: { config?: PlatformConfig; databaseUrl?: string; logger?: PlatformLogger } = {},
): Promise<CheckedTestPlatform> {
  const dataDir = mkdtempSync(join(tmpdir(), 'model-platform-test-'));
  const environment: NodeJS.ProcessEnv = { MODEL_PLATFORM_DATA_DIR: dataDir };
  if (options.databaseUrl !== undefined) environment['DATABASE_URL'] = options.databaseUrl;
  if (options.config !== undefined) {
    const configPath = join(dataDir, 'config.yaml');
    writeFileSync(configPath, stringify(options.config));
    environment['MODEL_PLATFORM_CONFIG'] = configPath;
  }
  const platform = await openPlatform(readSettings(environment), environment, options.logger === undefined ? {} : { logger: options.logger });
  const key = formatApiKey(await platform.keys.create({ name: 'test' }));
  const contract = new ResponseContract();
  const app = await buildApp({ ...platform, logger: options.logger ?? false, onResponseMismatch: contract.report });
  return {
    app,
    platform,
    key,
    authorization: `Bearer ${key}`,
    contract,
    async close() {
      await app.close();
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
      contract.assertKept();
    },
  };
}

/** Sends a JSON POST with the test key. */
export function postJson(test: TestPlatform, url: string, body: unknown, headers: Record<string, string> = {}) {
  return test.app.inject({
    method: 'POST',
    url,
    headers: { authorization: test.authorization, 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}
