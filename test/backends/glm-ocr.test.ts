import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeImage } from '../../src/tools/raster/decode-image.ts';
import { jsonReply, startFakeOpenAiServer, vllmCompletion, vllmError, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { renderPagePng } from '../helpers/rendered-documents.ts';
import { singleColumn, table } from '../helpers/sample-documents.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

interface VisionPart {
  type: string;
  text?: string;
  image_url?: { url: string };
}

/** The prompt and the image of the one user message GLM-OCR receives per region. */
function regionCall(body: Record<string, unknown>): { prompt: string; image: string } {
  const [message] = body['messages'] as { role: string; content: VisionPart[] }[];
  assert.equal(message?.role, 'user');
  const parts = message.content;
  return { prompt: parts.find((part) => part.type === 'text')?.text ?? '', image: parts.find((part) => part.type === 'image_url')?.image_url?.url ?? '' };
}

describe('glm-ocr backend: GLM-OCR on an OpenAI-compatible vision server reads each region', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  before(async () => {
    engine = await startFakeOpenAiServer();
    test = await startTestPlatform({
      config: { models: { 'glm-ocr': { backend: 'glm-ocr', baseUrl: engine.baseUrl, upstreamModel: 'zai-org/GLM-OCR' } } },
    });
  });
  after(async () => {
    await test.close();
    await engine.close();
  });

  it('sends every text region as a PNG crop with the recognition prompt and uses the answers', async () => {
    engine.reset();
    let region = 0;
    engine.setDefault(() => {
      region += 1;
      return jsonReply(vllmCompletion({ content: `Region ${region} read by the model`, usage: { promptTokens: 100, completionTokens: 7 } }));
    });
    const response = await postJson(test, '/paas/v4/layout_parsing', { model: 'glm-ocr', file: (await renderPagePng(singleColumn.page)).toString('base64') });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as { md_results: string; layout_details: { content: string }[][]; usage: Record<string, number> };
    assert.equal(engine.requests.length, 3);
    for (const request of engine.requests) {
      assert.equal(request.path, '/v1/chat/completions');
      assert.equal(request.body['model'], 'zai-org/GLM-OCR');
      assert.equal(request.body['temperature'], 0);
      const call = regionCall(request.body);
      assert.equal(call.prompt, 'Text Recognition:');
      assert.match(call.image, /^data:image\/png;base64,/);
      const crop = await decodeImage(Buffer.from(call.image.slice('data:image/png;base64,'.length), 'base64'));
      assert.ok(crop.width > 100 && crop.width < 1000 && crop.height < 300, `${crop.width}×${crop.height}`);
    }
    assert.deepEqual(
      body.layout_details[0]?.map((element) => element.content),
      ['Region 1 read by the model', 'Region 2 read by the model', 'Region 3 read by the model'],
    );
    assert.match(body.md_results, /^# Region 1 read by the model\n\nRegion 2/);
    assert.equal(body.usage['prompt_tokens'], 300);
    assert.equal(body.usage['completion_tokens'], 21);
  });

  it('asks for table recognition on a table region', async () => {
    engine.reset();
    engine.setDefault(jsonReply(vllmCompletion({ content: '<table><tr><td>Item</td></tr></table>' })));
    const response = await postJson(test, '/paas/v4/layout_parsing', { model: 'glm-ocr', file: (await renderPagePng(table.page)).toString('base64') });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(
      engine.requests.map((request) => regionCall(request.body).prompt),
      ['Table Recognition:'],
    );
  });

  it('answers the engine error as a platform error', async () => {
    engine.reset();
    engine.setDefault(vllmError(500, 'out of memory', 'InternalServerError'));
    const response = await postJson(test, '/paas/v4/layout_parsing', { model: 'glm-ocr', file: (await renderPagePng(singleColumn.page)).toString('base64') });
    assertPlatformError(response, { status: 500, code: '500', mentions: ['glm-ocr'] });
  });
});
