import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AsyncTaskResult, ImageTaskResult, VideoTaskResult } from '../../src/api/async-result/async-task.schema.ts';
import { formatApiKey } from '../../src/core/auth/api-key.ts';
import { createAjv } from '../../src/core/json-schema/create-ajv.ts';
import type { BlobStore } from '../../src/core/blobs/blob-store.ts';
import { readSettings } from '../../src/core/config/settings.ts';
import { ApiError } from '../../src/core/errors/api-error.ts';
import type { TaskHandler, TaskRecord } from '../../src/core/tasks/task.ts';
import type { App } from '../../src/http/app-types.ts';
import { buildApp } from '../../src/platform/build-app.ts';
import { openPlatform, type Platform } from '../../src/platform/open-platform.ts';
import { fastTuning } from '../tasks/task-test-kit.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { ResponseContract } from '../helpers/response-contract.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

describe('GET /paas/v4/async-result/{id} contract', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform();
  });
  after(() => test.close());

  const get = (url: string, headers: Record<string, string> = { authorization: test.authorization }) => test.app.inject({ method: 'GET', url, headers });

  it('answers 404 in the platform shape for a task that does not exist', async () => {
    const response = await get('/paas/v4/async-result/task-20250101-abc');
    assertPlatformError(response, { status: 404, code: '404', mentions: ['task-20250101-abc'] });
    assert.equal(response.headers['x-should-retry'], 'false');
  });

  it('is served under every alias prefix', async () => {
    for (const prefix of ['/api/paas/v4', '/api/coding/paas/v4']) {
      const response = await get(`${prefix}/async-result/some-task-id`);
      assertPlatformError(response, { status: 404, code: '404', mentions: ['some-task-id'] });
    }
  });

  it('needs an API key', async () => {
    const response = await get('/paas/v4/async-result/some-task-id', {});
    assertPlatformError(response, { status: 401, code: '1001' });
  });

  it('refuses an invalid key', async () => {
    const response = await get('/paas/v4/async-result/some-task-id', { authorization: 'Bearer nope.nope' });
    assert.equal(response.statusCode, 401);
  });

  it('documents both result variants in the OpenAPI document', async () => {
    const response = await test.app.inject({ method: 'GET', url: '/openapi.json' });
    const document = response.json() as { paths: Record<string, { get?: { responses?: Record<string, unknown> } }> };
    const success = JSON.stringify(document.paths['/paas/v4/async-result/{id}']?.get?.responses?.['200']);
    for (const field of ['image_result', 'video_result', 'cover_image_url', 'task_status', 'PROCESSING']) {
      assert.ok(success.includes(field), `200 response should document ${field}: ${success}`);
    }
  });
});

/** Test handlers for the two wire variants; the request says how the run goes (the real media handlers are tested with their engines). */
function variantHandlers(blobs: () => BlobStore): TaskHandler[] {
  const behave = async (task: TaskRecord, signal: AbortSignal) => {
    const behaviour = (task.request as { behaviour?: string }).behaviour;
    if (behaviour === 'fail') throw new ApiError('1301', 'The prompt was refused by the content filter.');
    if (behaviour === 'block') await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped'))));
  };
  return [
    {
      kind: 'image',
      async run(task, signal) {
        await behave(task, signal);
        const keys = [`images/${task.id}/0.png`, `images/${task.id}/1.png`];
        for (const [index, key] of keys.entries()) await blobs().put(key, imageBytes(index), 'image/png');
        return { images: keys.map((key) => ({ key })) };
      },
    },
    {
      kind: 'video',
      async run(task, signal) {
        await behave(task, signal);
        const key = `videos/${task.id}/video.mp4`;
        const coverKey = `videos/${task.id}/cover.jpg`;
        await blobs().put(key, Buffer.from('mp4 bytes'), 'video/mp4');
        await blobs().put(coverKey, Buffer.from('jpeg bytes'), 'image/jpeg');
        return { videos: [{ key, coverKey }] };
      },
    },
  ];
}

const ajv = createAjv(false);
const matches = (schema: object, body: unknown) => ajv.validate(schema, body);

const imageBytes = (index: number) => Buffer.from([0x89, 0x50, 0x4e, 0x47, index]);

describe('GET /paas/v4/async-result/{id} with tasks', () => {
  let dataDir: string;
  let platform: Platform;
  let app: App;
  const contract = new ResponseContract();
  let owner: { id: string; authorization: string };
  let other: { authorization: string };

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'model-platform-async-'));
    const environment = { MODEL_PLATFORM_DATA_DIR: dataDir };
    // The handlers store media in the platform's own blob store, made by openPlatform.
    const handlers = variantHandlers(() => platform.blobs);
    platform = await openPlatform(readSettings(environment), environment, { taskHandlers: handlers, taskTuning: fastTuning });
    platform.startWorkers();
    const ownerKey = await platform.keys.create({ name: 'owner' });
    owner = { id: ownerKey.id, authorization: `Bearer ${formatApiKey(ownerKey)}` };
    other = { authorization: `Bearer ${formatApiKey(await platform.keys.create({ name: 'other' }))}` };
    app = await buildApp({ ...platform, logger: false, onResponseMismatch: contract.report });
  });
  after(async () => {
    await app.close();
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
    contract.assertKept();
  });

  const submit = (kind: 'image' | 'video', behaviour: string) =>
    platform.tasks.submit({
      kind,
      ownerKeyId: owner.id,
      model: kind === 'image' ? 'glm-image' : 'cogvideox-3',
      requestId: `req-${behaviour}-1`,
      request: { behaviour },
    });
  const query = (id: string, authorization = owner.authorization) =>
    app.inject({ method: 'GET', url: `/paas/v4/async-result/${id}`, headers: { authorization, host: 'platform.test:9000' } });
  const settled = async (id: string) => {
    const until = Date.now() + 10_000;
    for (;;) {
      const body = query(id).then((response) => response.json() as { task_status: string });
      if ((await body).task_status !== 'PROCESSING' || Date.now() > until) return query(id);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const download = (url: string) => {
    const parsed = new URL(url);
    assert.equal(parsed.origin, 'http://platform.test:9000', 'absolute, on the origin the client used');
    return app.inject({ method: 'GET', url: `${parsed.pathname}${parsed.search}` });
  };

  it('image SUCCESS: {model, task_status, image_result:[{url}], request_id, id} with downloadable absolute URLs', async () => {
    const task = await submit('image', 'ok');
    const response = await settled(task.id);
    assert.equal(response.statusCode, 200);
    const body = response.json() as { image_result: { url: string }[] };
    assert.ok(matches(ImageTaskResult, body), response.body);
    assert.deepEqual(Object.keys(body).sort(), ['id', 'image_result', 'model', 'request_id', 'task_status']);
    assert.deepEqual(
      { ...body, image_result: undefined },
      {
        model: 'glm-image',
        task_status: 'SUCCESS',
        request_id: 'req-ok-1',
        id: task.id,
        image_result: undefined,
      },
    );
    assert.equal(body.image_result.length, 2);
    for (const [index, item] of body.image_result.entries()) {
      assert.deepEqual(Object.keys(item), ['url']);
      assert.ok(item.url.startsWith(`http://platform.test:9000/blobs/images/${task.id}/${index}.png?expires=`), item.url);
      const file = await download(item.url);
      assert.equal(file.statusCode, 200);
      assert.equal(file.headers['content-type'], 'image/png');
      assert.deepEqual(file.rawPayload, imageBytes(index));
    }
  });

  it('video SUCCESS: {model, task_status, video_result:[{url, cover_image_url}], request_id, id}', async () => {
    const task = await submit('video', 'ok');
    const response = await settled(task.id);
    const body = response.json() as { video_result: { url: string; cover_image_url: string }[] };
    assert.ok(matches(VideoTaskResult, body), response.body);
    assert.deepEqual(Object.keys(body).sort(), ['id', 'model', 'request_id', 'task_status', 'video_result']);
    assert.equal((body as unknown as { task_status: string }).task_status, 'SUCCESS');
    assert.equal(body.video_result.length, 1);
    const [video] = body.video_result;
    assert.deepEqual(Object.keys(video ?? {}), ['url', 'cover_image_url']);
    const file = await download(video?.url ?? '');
    assert.equal(file.headers['content-type'], 'video/mp4');
    assert.equal(file.body, 'mp4 bytes');
    const cover = await download(video?.cover_image_url ?? '');
    assert.equal(cover.headers['content-type'], 'image/jpeg');
    assert.equal(cover.body, 'jpeg bytes');
  });

  it('PROCESSING answers carry an empty result array and no error, in each variant', async () => {
    for (const kind of ['image', 'video'] as const) {
      const task = await submit(kind, 'block');
      const body = (await query(task.id)).json() as Record<string, unknown>;
      assert.equal(body['task_status'], 'PROCESSING');
      assert.deepEqual(body[`${kind}_result`], []);
      assert.equal(body['error'], undefined);
      assert.equal(body[kind === 'image' ? 'video_result' : 'image_result'], undefined, 'one variant only');
    }
  });

  it('FAIL answers carry an empty result array and error {code, message}', async () => {
    for (const kind of ['image', 'video'] as const) {
      const task = await submit(kind, 'fail');
      const body = (await settled(task.id)).json() as Record<string, unknown>;
      assert.equal(body['task_status'], 'FAIL');
      assert.deepEqual(body[`${kind}_result`], []);
      assert.deepEqual(body['error'], { code: '1301', message: 'The prompt was refused by the content filter.' });
      assert.ok(matches(AsyncTaskResult, body));
    }
  });

  it("another key's task answers 404 exactly like an unknown id", async () => {
    const task = await submit('image', 'ok');
    const theirs = await query(task.id, other.authorization);
    assertPlatformError(theirs, { status: 404, code: '404', mentions: [task.id] });
    const unknown = await query('20250101000000aaaaaaaaaaaaaaaa');
    assert.equal(unknown.statusCode, 404);
    assert.equal(theirs.body.replace(task.id, 'ID'), unknown.body.replace('20250101000000aaaaaaaaaaaaaaaa', 'ID'));
  });
});
