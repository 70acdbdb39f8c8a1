import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createOpenAiImagesBackend } from '../../src/backends/openai-images/openai-images.backend.ts';
import type { OpenAiImagesSettings } from '../../src/backends/openai-images/openai-images-settings.ts';
import type { Backend } from '../../src/core/backends/backend.ts';
import type { ImageRequest } from '../../src/core/media/image-generator.ts';
import { unusedResources } from '../helpers/backend-resources.ts';
import { startFakeOpenAiImagesServer, type FakeOpenAiImagesServer } from '../helpers/fake-openai-images-server.ts';
import { sampleJpeg, samplePng } from '../helpers/media-samples.ts';
import { apiErrorOf, EngineFailure } from '../../src/core/errors/engine-failure.ts';
import { assertApiError, assertEngineFailure, rejection } from '../helpers/api-error-assertions.ts';

let engine: FakeOpenAiImagesServer;
let png: Buffer;
let jpeg: Buffer;
const opened: Backend[] = [];

before(async () => {
  engine = await startFakeOpenAiImagesServer();
  [png, jpeg] = await Promise.all([samplePng(32, 32), sampleJpeg(32, 32)]);
});
after(async () => {
  await Promise.all(opened.map((backend) => backend.close?.()));
  await engine.close();
});
beforeEach(() => engine.reset());

function images(entry: Partial<OpenAiImagesSettings> = {}) {
  const backend = createOpenAiImagesBackend({
    modelName: 'my-painter',
    entry: { backend: 'openai-images', baseUrl: engine.baseUrl, apiKey: 'engine-key', ...entry },
    configDir: '.',
    resources: unusedResources,
  });
  opened.push(backend);
  assert.ok(backend.image !== undefined);
  assert.equal(backend.chat, undefined);
  return backend.image;
}

function request(overrides: Partial<ImageRequest> = {}): ImageRequest {
  return {
    model: 'my-painter',
    prompt: 'a lighthouse at dusk',
    width: 1024,
    height: 1024,
    quality: 'standard',
    asyncTask: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe('openai-images', () => {
  it('asks for one base64 image with the upstream model, size and quality, and returns its bytes', async () => {
    engine.reply({ kind: 'b64', images: [png] });
    const result = await images({ upstreamModel: 'dall-e-3' }).generate(request({ width: 1344, height: 768, quality: 'hd' }));
    assert.deepEqual(engine.requests[0]?.body, {
      model: 'dall-e-3',
      prompt: 'a lighthouse at dusk',
      size: '1344x768',
      quality: 'hd',
      n: 1,
      response_format: 'b64_json',
    });
    assert.equal(engine.requests[0]?.headers.authorization, 'Bearer engine-key');
    assert.equal(result.images.length, 1);
    assert.deepEqual(Buffer.from(result.images[0]?.bytes ?? []), png);
    assert.equal(result.images[0]?.contentType, 'image/png');
  });

  it('sends the public model name when no upstreamModel is set, and reads the type from the bytes', async () => {
    engine.reply({ kind: 'b64', images: [jpeg] });
    const result = await images().generate(request());
    assert.equal(engine.requests[0]?.body['model'], 'my-painter');
    assert.equal(result.images[0]?.contentType, 'image/jpeg');
  });

  it('downloads an image the engine answers as a URL on its own address', async () => {
    engine.reply({ kind: 'url', images: [png, jpeg] });
    const result = await images().generate(request());
    assert.equal(engine.downloads.length, 2);
    assert.deepEqual(
      result.images.map((image) => image.contentType),
      ['image/png', 'image/jpeg'],
    );
  });

  it('asks again without response_format when the engine refuses it (gpt-image-1)', async () => {
    engine.reply(
      { kind: 'error', status: 400, message: "Unknown parameter: 'response_format'.", param: 'response_format', code: 'unknown_parameter' },
      { kind: 'b64', images: [png] },
    );
    const result = await images().generate(request());
    assert.equal(engine.requests.length, 2);
    assert.equal('response_format' in (engine.requests[1]?.body ?? {}), false);
    assert.equal(result.images.length, 1);
  });

  it('refuses, through the SSRF guard, an image URL the engine points at another private address', async () => {
    const other = createServer((_message, response) => response.end(png));
    other.listen(0, '127.0.0.2');
    await once(other, 'listening');
    try {
      const url = `http://127.0.0.2:${(other.address() as AddressInfo).port}/secret.png`;
      engine.reply({ kind: 'foreign-url', urls: [url] });
      const error = await rejection(images().generate(request()));
      // The caller is told why, not where: engine-side addresses are masked (docs/security.md).
      assertApiError(error, '500', 'my-painter', 'private address', 'fetch.allow');
      assert.ok(error instanceof EngineFailure && !apiErrorOf(error).message.includes(url));
    } finally {
      other.close();
    }
  });

  it('maps a safety refusal to 1301 and other errors like the OpenAI-compatible engines', async () => {
    engine.reply({ kind: 'error', status: 400, message: 'Your request was rejected as a result of our safety system.', code: 'content_policy_violation' });
    assertEngineFailure(await rejection(images().generate(request())), 'content-filtered', 'safety system');
    engine.reply({ kind: 'error', status: 400, message: 'size must be one of 1024x1024, 1792x1024', param: 'size' });
    assertEngineFailure(await rejection(images().generate(request())), 'rejected-input', 'size must be one of');
    engine.reply({ kind: 'error', status: 401, message: 'Incorrect API key provided' });
    assertEngineFailure(await rejection(images().generate(request())), 'misconfigured', 'apiKey');
  });

  it('refuses an answer without an image, and bytes that are not one', async () => {
    engine.reply({ kind: 'b64', images: [] });
    assertEngineFailure(await rejection(images().generate(request())), 'bad-answer', 'without an image');
    engine.reply({ kind: 'b64', images: [Buffer.from('{"not":"an image"}')] });
    assertEngineFailure(await rejection(images().generate(request())), 'bad-answer', 'not a PNG');
  });

  it('times out on an engine that never answers', async () => {
    engine.reply({ kind: 'hang' });
    const error = await rejection(images({ timeoutMs: 200 }).generate(request()));
    assertEngineFailure(error, 'timeout', 'my-painter', '200 ms');
  });
});
