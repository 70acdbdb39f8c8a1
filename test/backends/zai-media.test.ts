import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createZaiBackend } from '../../src/backends/zai/zai.backend.ts';
import type { ZaiSettings } from '../../src/backends/zai/zai-settings.ts';
import type { Backend } from '../../src/core/backends/backend.ts';
import type { ImageRequest } from '../../src/core/media/image-generator.ts';
import type { VideoRequest } from '../../src/core/media/video-generator.ts';
import { unusedResources } from '../helpers/backend-resources.ts';
import { startFakeZaiMediaServer, type FakeZaiMediaServer } from '../helpers/fake-zai-media-server.ts';
import { sampleJpeg, sampleMp4, samplePng } from '../helpers/media-samples.ts';
import { assertEngineFailure, rejection } from '../helpers/api-error-assertions.ts';

const apiKey = 'upstream-id.upstream-secret';
let upstream: FakeZaiMediaServer;
let png: Buffer;
let jpeg: Buffer;
let mp4: Buffer;
const opened: Backend[] = [];

before(async () => {
  upstream = await startFakeZaiMediaServer({ apiKey });
  [png, jpeg, mp4] = await Promise.all([samplePng(), sampleJpeg(), sampleMp4()]);
});
after(async () => {
  await Promise.all(opened.map((backend) => backend.close?.()));
  await upstream.close();
});
beforeEach(() => upstream.reset());

function backend(modelName: string, entry: Partial<ZaiSettings> = {}) {
  const created = createZaiBackend({
    modelName,
    entry: { backend: 'zai', baseUrl: upstream.baseUrl, apiKey, pollIntervalMs: 10, ...entry },
    configDir: '.',
    resources: unusedResources,
  });
  opened.push(created);
  assert.ok(created.image !== undefined && created.video !== undefined);
  return { image: created.image, video: created.video };
}

function imageRequest(overrides: Partial<ImageRequest> = {}): ImageRequest {
  return {
    model: 'glm-image',
    prompt: 'a panda',
    width: 1280,
    height: 1280,
    quality: 'hd',
    asyncTask: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

function videoRequest(overrides: Partial<VideoRequest> = {}): VideoRequest {
  return {
    model: 'cogvideox-3',
    prompt: 'a panda eating',
    images: [],
    quality: 'speed',
    withAudio: true,
    size: undefined,
    fps: 30,
    durationSeconds: 5,
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe('zai: images', () => {
  it('generates synchronously upstream, downloads the image and passes the content filter on', async () => {
    upstream.plan({ kind: 'images', images: [png] });
    const result = await backend('glm-image', { upstreamModel: 'glm-image-upstream' }).image.generate(imageRequest());
    const [submitted] = upstream.requests;
    assert.equal(submitted?.path, '/api/paas/v4/images/generations');
    assert.equal(submitted.authorization, `Bearer ${apiKey}`);
    assert.deepEqual(submitted.body, { model: 'glm-image-upstream', prompt: 'a panda', size: '1280x1280', quality: 'hd' });
    assert.deepEqual(Buffer.from(result.images[0]?.bytes ?? []), png);
    assert.deepEqual(result.contentFilter, [{ role: 'assistant', level: 2 }]);
  });

  it("runs an asynchronous task on the upstream's async API, polling its own task id until SUCCESS", async () => {
    upstream.plan({ kind: 'images', images: [jpeg], pendingPolls: 3 });
    const result = await backend('glm-image').image.generate(imageRequest({ asyncTask: true }));
    const paths = upstream.requests.map((request) => `${request.method} ${request.path}`);
    assert.equal(paths[0], 'POST /api/paas/v4/async/images/generations');
    assert.equal(paths.length, 5, 'one submission, three PROCESSING polls, one SUCCESS');
    assert.match(paths[4] ?? '', /^GET \/api\/paas\/v4\/async-result\/upstream-/);
    assert.equal(result.images[0]?.contentType, 'image/jpeg');
    assert.equal(result.contentFilter, undefined);
  });

  it("passes the upstream's own error codes on", async () => {
    upstream.plan({ kind: 'error', status: 400, code: '1301', message: 'The content may contain unsafe material.' });
    const error = await rejection(backend('glm-image').image.generate(imageRequest()));
    assertEngineFailure(error, 'content-filtered', 'unsafe');
    assert.equal(error.relayedCode, '1301');
  });

  it('reports an upstream task that ends FAIL', async () => {
    upstream.plan({ kind: 'fail', pendingPolls: 1 });
    assertEngineFailure(await rejection(backend('glm-image').image.generate(imageRequest({ asyncTask: true }))), 'engine-error', 'glm-image', 'failed');
  });

  it('refuses a wrong apiKey as a configuration problem', async () => {
    upstream.plan({ kind: 'images', images: [png] });
    const error = await rejection(backend('glm-image', { apiKey: 'wrong.key' }).image.generate(imageRequest()));
    assertEngineFailure(error, 'misconfigured', 'apiKey');
  });
});

describe('zai: videos', () => {
  it('submits the video with data URLs, polls, and downloads the video and its cover', async () => {
    upstream.plan({ kind: 'video', video: mp4, cover: png, pendingPolls: 2 });
    const video = await backend('cogvideox-3').video.generate(
      videoRequest({
        images: [
          { bytes: png, contentType: 'image/png' },
          { bytes: jpeg, contentType: 'image/jpeg' },
        ],
        size: '1920x1080',
        fps: 60,
        durationSeconds: 10,
      }),
    );
    const submitted = upstream.requests[0]?.body;
    assert.equal(upstream.requests[0]?.path, '/api/paas/v4/videos/generations');
    assert.deepEqual(submitted, {
      model: 'cogvideox-3',
      prompt: 'a panda eating',
      quality: 'speed',
      with_audio: true,
      fps: 60,
      duration: 10,
      size: '1920x1080',
      image_url: [`data:image/png;base64,${png.toString('base64')}`, `data:image/jpeg;base64,${jpeg.toString('base64')}`],
    });
    assert.deepEqual(Buffer.from(video.bytes), mp4);
    assert.equal(video.contentType, 'video/mp4');
    assert.deepEqual(Buffer.from(video.cover?.bytes ?? []), png);
  });

  it('sends one image as a string, and leaves the cover to the platform when the upstream gives none', async () => {
    upstream.plan({ kind: 'video', video: mp4 });
    const video = await backend('cogvideox-3').video.generate(videoRequest({ prompt: undefined, images: [{ bytes: png, contentType: 'image/png' }] }));
    assert.equal(typeof upstream.requests[0]?.body?.['image_url'], 'string');
    assert.equal('prompt' in (upstream.requests[0]?.body ?? {}), false);
    assert.equal(video.cover, undefined);
  });

  it('times out on an upstream task that never finishes', async () => {
    upstream.plan({ kind: 'video', video: mp4, pendingPolls: 1_000_000 });
    const error = await rejection(backend('cogvideox-3', { timeoutMs: 200 }).video.generate(videoRequest()));
    assertEngineFailure(error, 'timeout', 'cogvideox-3', 'did not finish', 'timeoutMs');
  });
});
