import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startFakeComfyUiServer, type FakeComfyUiServer } from '../helpers/fake-comfyui-server.ts';
import { startFakeOpenAiImagesServer, type FakeOpenAiImagesServer } from '../helpers/fake-openai-images-server.ts';
import { startFakeZaiMediaServer, type FakeZaiMediaServer } from '../helpers/fake-zai-media-server.ts';
import { download, startMediaTestPlatform, waitForTask } from '../helpers/media-test-platform.ts';
import { sampleJpeg, samplePng } from '../helpers/media-samples.ts';
import { postJson, type TestPlatform } from '../helpers/test-platform.ts';

const syncUrl = '/paas/v4/images/generations';
const asyncUrl = '/paas/v4/async/images/generations';
const zaiKey = 'upstream-id.upstream-secret';

const workflow = {
  '5': { class_type: 'EmptyLatentImage', inputs: { width: '{{width}}', height: '{{height}}', batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}' } },
  '3': { class_type: 'KSampler', inputs: { seed: '{{seed}}', steps: '{{steps}}', latent_image: ['5', 0] } },
  '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'ComfyUI', images: ['3', 0] } },
};

let test: TestPlatform & { readonly dataDir: string };
let comfy: FakeComfyUiServer;
let openaiImages: FakeOpenAiImagesServer;
let zai: FakeZaiMediaServer;
let png: Buffer;
let jpeg: Buffer;
let workflowDir: string;

before(async () => {
  [comfy, openaiImages, zai, png, jpeg] = await Promise.all([
    startFakeComfyUiServer(),
    startFakeOpenAiImagesServer(),
    startFakeZaiMediaServer({ apiKey: zaiKey }),
    samplePng(40, 30),
    sampleJpeg(40, 30),
  ]);
  workflowDir = mkdtempSync(join(tmpdir(), 'images-engine-'));
  const workflowPath = join(workflowDir, 'image.json');
  writeFileSync(workflowPath, JSON.stringify(workflow));
  test = await startMediaTestPlatform({
    models: {
      'cogview-4-250304': { backend: 'comfyui', baseUrl: comfy.baseUrl, workflow: workflowPath, pollIntervalMs: 10 },
      'glm-image': { backend: 'zai', baseUrl: zai.baseUrl, apiKey: zaiKey, pollIntervalMs: 10 },
      'my-painter': { backend: 'openai-images', baseUrl: openaiImages.baseUrl, upstreamModel: 'dall-e-3' },
    },
  });
});
after(async () => {
  await test.close();
  await Promise.all([comfy.close(), openaiImages.close(), zai.close()]);
  rmSync(workflowDir, { recursive: true, force: true });
});
beforeEach(() => {
  comfy.reset();
  openaiImages.reset();
  zai.reset();
});

describe('POST /paas/v4/images/generations on real engines', () => {
  it('generates on ComfyUI with the default size and quality, stores the image and links it absolutely', async () => {
    comfy.plan({ outcome: 'success', pendingPolls: 2, files: [{ node: '9', kind: 'images', filename: 'ComfyUI_00001_.png', bytes: png }] });
    const response = await postJson(test, syncUrl, { model: 'cogview-4-250304', prompt: 'a red fox', quality: null, size: null, n: 1 });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    const body = response.json() as { created: number; data: { url: string }[]; content_filter: unknown };
    assert.deepEqual(Object.keys(body).sort(), ['content_filter', 'created', 'data']);
    assert.ok(Math.abs(body.created - Date.now() / 1000) < 60);
    assert.deepEqual(body.content_filter, [{ role: 'assistant', level: 3 }]);
    assert.equal(body.data.length, 1);
    const url = body.data[0]?.url ?? '';
    assert.match(url, /^http:\/\/localhost(:80)?\/blobs\/images\/[^/]+\/0\.png\?expires=\d+&signature=/);
    const filled = comfy.prompts[0]?.workflow;
    assert.equal(filled?.['5']?.inputs['width'], 1024, 'cogview default size 1024x1024');
    assert.equal(filled?.['5']?.inputs['height'], 1024);
    assert.equal(filled?.['3']?.inputs['steps'], 25, 'cogview default quality standard');
    const file = await download(test, url);
    assert.equal(file.status, 200);
    assert.equal(file.contentType, 'image/png');
    assert.deepEqual(file.bytes, png);
  });

  it('serves the download link without credentials, and refuses it once tampered with', async () => {
    comfy.plan({ outcome: 'success', files: [{ node: '9', kind: 'images', filename: 'a.png', bytes: png }] });
    const response = await postJson(test, syncUrl, { model: 'cogview-4-250304', prompt: 'x', size: '768x1344', quality: 'hd' });
    const url = new URL((response.json() as { data: { url: string }[] }).data[0]?.url ?? '');
    assert.equal(comfy.prompts[0]?.workflow['3']?.inputs['steps'], 50);
    url.searchParams.set('signature', 'forged');
    const forged = await download(test, url.href);
    assert.equal(forged.status, 404);
  });

  it('defaults glm-image to 1280x1280 hd on the upstream platform and passes its content filter on', async () => {
    zai.plan({ kind: 'images', images: [jpeg] });
    const response = await postJson(test, syncUrl, { model: 'glm-image', prompt: 'a panda' });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(zai.requests[0]?.body, { model: 'glm-image', prompt: 'a panda', size: '1280x1280', quality: 'hd' });
    const body = response.json() as { data: { url: string }[]; content_filter: unknown };
    assert.deepEqual(body.content_filter, [{ role: 'assistant', level: 2 }]);
    const url = body.data[0]?.url ?? '';
    assert.ok(!url.includes('127.0.0.1'), "the URL is this server's, not the upstream's");
    assert.deepEqual((await download(test, url)).bytes, jpeg);
  });

  it("gives an operator's catalog model any WxH size (openai-images engine)", async () => {
    openaiImages.reply({ kind: 'b64', images: [png] });
    const response = await postJson(test, syncUrl, { model: 'my-painter', prompt: 'x', size: '3000x7' });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(openaiImages.requests[0]?.body, {
      model: 'dall-e-3',
      prompt: 'x',
      size: '3000x7',
      quality: 'standard',
      n: 1,
      response_format: 'b64_json',
    });
  });

  it("answers an engine's failure in the platform's error body", async () => {
    comfy.plan({ outcome: 'error', nodeId: '3', nodeType: 'KSampler', exceptionType: 'RuntimeError', exceptionMessage: 'CUDA error: out of memory' });
    const failed = await postJson(test, syncUrl, { model: 'cogview-4-250304', prompt: 'x' });
    assertPlatformError(failed, { status: 500, code: '500', mentions: ['cogview-4-250304', 'KSampler', 'out of memory'] });
    openaiImages.reply({
      kind: 'error',
      status: 400,
      message: 'Your request was rejected as a result of our safety system.',
      code: 'content_policy_violation',
    });
    const refused = await postJson(test, syncUrl, { model: 'my-painter', prompt: 'x' });
    assertPlatformError(refused, { status: 400, code: '1301', mentions: ['safety system'] });
    // The engine refused the caller's prompt and gave no severity.
    assert.deepEqual((refused.json() as { contentFilter: unknown }).contentFilter, [{ role: 'user', level: 1 }]);
  });
});

describe('POST /paas/v4/async/images/generations through the task engine', () => {
  it("submits, runs on the upstream's async API under this platform's task id, and ends SUCCESS with image_result", async () => {
    zai.plan({ kind: 'images', images: [png], pendingPolls: 2 });
    const response = await postJson(test, asyncUrl, { model: 'glm-image', prompt: 'a panda', request_id: 'my-request-123' });
    assert.equal(response.statusCode, 200, response.body);
    const submission = response.json() as { id: string; model: string; request_id: string; task_status: string };
    assert.deepEqual(Object.keys(submission).sort(), ['id', 'model', 'request_id', 'task_status']);
    assert.equal(submission.model, 'glm-image');
    assert.equal(submission.request_id, 'my-request-123');
    assert.equal(submission.task_status, 'PROCESSING');
    const done = await waitForTask(test, submission.id);
    assert.equal(done.task_status, 'SUCCESS', JSON.stringify(done));
    assert.equal(done.request_id, 'my-request-123');
    assert.equal(zai.requests[0]?.path, '/api/paas/v4/async/images/generations');
    assert.deepEqual(zai.requests[0]?.body, { model: 'glm-image', prompt: 'a panda', size: '1280x1280', quality: 'hd' });
    const upstreamPoll = zai.requests.at(-1)?.path ?? '';
    assert.ok(!upstreamPoll.endsWith(submission.id), 'the upstream task id is not ours');
    assert.equal(done.image_result?.length, 1);
    const file = await download(test, done.image_result?.[0]?.url ?? '');
    assert.equal(file.status, 200);
    assert.deepEqual(file.bytes, png);
  });

  it('ends FAIL with the reason when the engine fails', async () => {
    zai.plan({ kind: 'error', status: 400, code: '1301', message: 'The content may contain unsafe material.' });
    const response = await postJson(test, asyncUrl, { model: 'glm-image', prompt: 'x' });
    const done = await waitForTask(test, (response.json() as { id: string }).id);
    assert.equal(done.task_status, 'FAIL');
    assert.deepEqual(done.image_result, []);
    assert.deepEqual(done.error, { code: '1301', message: 'The content may contain unsafe material.' });
  });

  it('refuses at submission when no engine serves the model', async () => {
    const other = await startMediaTestPlatform({});
    try {
      assertPlatformError(await postJson(other, asyncUrl, { model: 'glm-image', prompt: 'x' }), { status: 400, code: '1221', mentions: ['glm-image'] });
    } finally {
      await other.close();
    }
  });
});
