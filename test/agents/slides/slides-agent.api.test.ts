import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import { decodeImage } from '../../../src/tools/raster/decode-image.ts';
import { jsonReply, startFakeOpenAiServer, vllmCompletion, type FakeOpenAiServer } from '../../helpers/fake-openai-server.ts';
import { parseSseBody } from '../../helpers/sse-events.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../../helpers/test-platform.ts';

const plan = {
  kind: 'deck',
  title: 'Tea Harvest',
  slides: [
    { layout: 'title', title: 'Tea Harvest', subtitle: 'Spring report' },
    { layout: 'bullets', title: 'Yields', bullets: ['North up', 'South flat'] },
    { layout: 'quote', text: 'Good tea needs patience.', attribution: 'Grower' },
  ],
};

interface ConversationAnswer {
  conversation_id: string;
  agent_id: string;
  choices: { message: { role: string; content: { type: string; tag_cn: string; tag_en: string; image_url?: string; file_url?: string }[] }[] }[];
}

describe('slides_glm_agent through POST /v1/agents and /v1/agents/conversation', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  before(async () => {
    engine = await startFakeOpenAiServer();
    engine.setDefault(jsonReply(vllmCompletion({ content: JSON.stringify(plan) })));
    test = await startTestPlatform({
      config: {
        models: { planner: { backend: 'openai-compatible', baseUrl: engine.baseUrl } },
        agents: { slides_glm_agent: { model: 'planner' } },
      },
    });
  });
  after(async () => {
    await test.close();
    await engine.close();
  });

  async function download(link: string): Promise<Buffer> {
    const url = new URL(link);
    const response = await test.app.inject({ method: 'GET', url: url.pathname + url.search });
    assert.equal(response.statusCode, 200);
    return response.rawPayload;
  }

  it('plans a deck in a stream, then serves its PNG pages and PDF with the asked page size', async () => {
    const response = await postJson(test, '/v1/agents', {
      agent_id: 'slides_glm_agent',
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Three slides on the tea harvest' }] }],
    });
    assert.equal(response.statusCode, 200, response.body);
    const frames = parseSseBody(response.body);
    assert.ok(frames.every((frame) => frame['agent_id'] === 'slides_glm_agent'));
    const conversationId = frames.map((frame) => frame['conversation_id']).find((id) => typeof id === 'string') as string | undefined;
    assert.ok(conversationId !== undefined, 'the stream names the conversation');

    const conversation = await postJson(test, '/v1/agents/conversation', {
      agent_id: 'slides_glm_agent',
      conversation_id: conversationId,
      custom_variables: { include_pdf: true, pages: [{ position: 2, width: 540, height: 720 }] },
    });
    assert.equal(conversation.statusCode, 200, conversation.body);
    const answer = conversation.json() as ConversationAnswer;
    assert.equal(answer.conversation_id, conversationId);
    const items = answer.choices[0]?.message[0]?.content ?? [];
    const images = items.filter((item) => item.type === 'image_url');
    const pdfs = items.filter((item) => item.type === 'file_url');
    assert.equal(images.length, 3);
    assert.deepEqual(
      images.map((item) => item.tag_en),
      ['Page 1', 'Page 2', 'Page 3'],
    );
    assert.equal(pdfs.length, 1);
    const first = await decodeImage(await download(images[0]?.image_url ?? ''));
    const second = await decodeImage(await download(images[1]?.image_url ?? ''));
    assert.ok(first.width > first.height, `a 16:9 slide: ${first.width}×${first.height}`);
    assert.ok(second.height > second.width, `page 2 re-rendered portrait: ${second.width}×${second.height}`);
    const pdf = await PDFDocument.load(await download(pdfs[0]?.file_url ?? ''));
    assert.equal(pdf.getPageCount(), 3);
    assert.deepEqual(pdf.getPage(0).getSize(), { width: 960, height: 540 });
    assert.deepEqual(pdf.getPage(1).getSize(), { width: 540, height: 720 });
  });

  it('answers 404 for a conversation another key does not own', async () => {
    const response = await postJson(test, '/v1/agents/conversation', { agent_id: 'slides_glm_agent', conversation_id: 'no-such-conversation' });
    assert.equal(response.statusCode, 404, response.body);
  });
});
