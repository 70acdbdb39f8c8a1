import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startFakeOpenAiServer, vllmCompletion, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const pixel = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('chat media given by URL go through the SSRF guard and reach the engine inline', () => {
  let engine: FakeOpenAiServer;
  let images: Server;
  let imageOrigin: string;
  let test: TestPlatform;
  before(async () => {
    engine = await startFakeOpenAiServer();
    engine.setDefault({ kind: 'json', body: vllmCompletion({ content: 'a dot' }) });
    images = createServer((_request, response) => response.writeHead(200, { 'content-type': 'image/png' }).end(pixel));
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imageOrigin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    test = await startTestPlatform({
      config: { models: { 'glm-4.6v': { backend: 'openai-compatible', baseUrl: engine.baseUrl, vision: true } }, fetch: { allow: ['127.0.0.1'] } },
    });
  });
  after(async () => {
    await test.close();
    await engine.close();
    await new Promise((resolve) => images.close(resolve));
  });

  const ask = (imageUrl: string) =>
    postJson(test, '/paas/v4/chat/completions', {
      model: 'glm-4.6v',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: imageUrl } },
          ],
        },
      ],
    });

  it('fetches an allowed URL and sends the image to the engine as a data URL', async () => {
    const response = await ask(`${imageOrigin}/dot.png`);
    assert.equal(response.statusCode, 200, response.body);
    const parts = (engine.requests.at(-1)?.body['messages'] as { content: { image_url?: { url: string } }[] }[])[0]?.content;
    assert.equal(parts?.[1]?.image_url?.url, `data:image/png;base64,${pixel.toString('base64')}`);
  });

  it('refuses private and metadata addresses before the engine is called', async () => {
    const before = engine.requests.length;
    for (const url of ['http://10.0.0.1/x.png', 'http://169.254.169.254/latest/meta-data', 'http://127.0.0.2/x.png', 'http://[::1]/x.png']) {
      const response = await ask(url);
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['private address'] });
    }
    assert.equal(engine.requests.length, before, 'the engine was never called');
  });
});
