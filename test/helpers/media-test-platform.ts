import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { formatApiKey } from '../../src/core/auth/api-key.ts';
import type { PlatformConfig } from '../../src/core/config/config.schema.ts';
import { readSettings } from '../../src/core/config/settings.ts';
import { buildApp } from '../../src/platform/build-app.ts';
import { openPlatform, type PlatformOptions } from '../../src/platform/open-platform.ts';
import { ResponseContract } from './response-contract.ts';
import type { CheckedTestPlatform, TestPlatform } from './test-platform.ts';

/**
 * The real platform (SQLite, local blob store, embedded task queue, the media task handlers as
 * composed for production) with its workers running and queue timings short enough for tests:
 * what a client of the async image and video endpoints talks to.
 */
export async function startMediaTestPlatform(
  config: PlatformConfig,
  options: { readonly environment?: NodeJS.ProcessEnv; readonly platform?: PlatformOptions } = {},
): Promise<CheckedTestPlatform & { readonly dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'model-platform-media-'));
  const configPath = join(dataDir, 'config.yaml');
  writeFileSync(configPath, stringify(config));
  const environment: NodeJS.ProcessEnv = { MODEL_PLATFORM_DATA_DIR: dataDir, MODEL_PLATFORM_CONFIG: configPath, ...options.environment };
  const platform = await openPlatform(readSettings(environment), environment, {
    ...options.platform,
    taskTuning: { pollMs: 25, sweepMs: 200, leaseMs: 5_000, heartbeatMs: 500, retryBaseMs: 20, retryMaxMs: 100, ...options.platform?.taskTuning },
  });
  platform.startWorkers();
  const key = formatApiKey(await platform.keys.create({ name: 'media-test' }));
  const contract = new ResponseContract();
  const app = await buildApp({ ...platform, logger: false, onResponseMismatch: contract.report });
  return {
    app,
    platform,
    key,
    dataDir,
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

export interface TaskAnswer {
  readonly id: string;
  readonly model: string;
  readonly request_id: string;
  readonly task_status: 'PROCESSING' | 'SUCCESS' | 'FAIL';
  readonly image_result?: { url: string }[];
  readonly video_result?: { url: string; cover_image_url: string }[];
  readonly error?: { code: string; message: string };
}

/** Polls GET /paas/v4/async-result/{id} as a client does, until the task is no longer PROCESSING. */
export async function waitForTask(test: TestPlatform, id: string, withinMs = 15_000): Promise<TaskAnswer> {
  const until = Date.now() + withinMs;
  for (;;) {
    const response = await test.app.inject({ method: 'GET', url: `/paas/v4/async-result/${id}`, headers: { authorization: test.authorization } });
    assert.equal(response.statusCode, 200, response.body);
    const answer = response.json() as TaskAnswer;
    if (answer.task_status !== 'PROCESSING') return answer;
    if (Date.now() > until) assert.fail(`task ${id} is still PROCESSING after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

/** Downloads an absolute media URL the platform handed out, through its own blob route, without credentials. */
export async function download(test: TestPlatform, url: string): Promise<{ status: number; contentType: string | undefined; bytes: Buffer }> {
  const parsed = new URL(url);
  assert.match(parsed.protocol, /^https?:$/, `an absolute URL: ${url}`);
  const response = await test.app.inject({ method: 'GET', url: `${parsed.pathname}${parsed.search}` });
  return { status: response.statusCode, contentType: response.headers['content-type'] as string | undefined, bytes: response.rawPayload };
}
