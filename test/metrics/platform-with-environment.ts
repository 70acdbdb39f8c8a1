import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSettings } from '../../src/core/config/settings.ts';
import type { App } from '../../src/http/app-types.ts';
import { buildApp } from '../../src/platform/build-app.ts';
import { openPlatform, type Platform } from '../../src/platform/open-platform.ts';
import { ResponseContract } from '../helpers/response-contract.ts';

export interface EnvironmentPlatform {
  readonly app: App;
  readonly platform: Platform;
  readonly dataDir: string;
  /** Collects answers that break their response schemas (`close()` fails on one). */
  readonly contract: ResponseContract;
  close(): Promise<void>;
}

/**
 * A real platform and app on SQLite in a temporary data dir, opened from `environment` as
 * `serve` opens it (REDIS_URL, MODEL_PLATFORM_METRICS_TOKEN...). `prepare` runs on the data dir
 * before the platform opens. Its answers are checked against their response schemas (`close()`
 * fails on a mismatch).
 */
export async function platformWithEnvironment(
  environment: NodeJS.ProcessEnv,
  prepare: (dataDir: string) => void = () => undefined,
): Promise<EnvironmentPlatform> {
  const dataDir = mkdtempSync(join(tmpdir(), 'model-platform-ops-'));
  prepare(dataDir);
  const fullEnvironment = { MODEL_PLATFORM_DATA_DIR: dataDir, ...environment };
  const platform = await openPlatform(readSettings(fullEnvironment), fullEnvironment);
  const contract = new ResponseContract();
  const app = await buildApp({ ...platform, logger: false, onResponseMismatch: contract.report });
  return {
    app,
    platform,
    dataDir,
    contract,
    async close() {
      await app.close();
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
      contract.assertKept();
    },
  };
}
