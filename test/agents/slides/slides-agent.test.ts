import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { AgentEvent, AgentInput, ConversationItem } from '../../../src/agents/agent.ts';
import { createSlidesAgent, type SlidesAgent } from '../../../src/agents/slides/slides-agent.ts';
import { ApiError } from '../../../src/core/errors/api-error.ts';
import { apiErrorOf, EngineFailure } from '../../../src/core/errors/engine-failure.ts';
import { AgentConversationRepository } from '../../../src/store/agent-conversation-repository.ts';
import { decodeImage } from '../../../src/tools/raster/decode-image.ts';
import { jsonReply, startFakeOpenAiServer, vllmCompletion, type FakeOpenAiServer } from '../../helpers/fake-openai-server.ts';
import { startTestPlatform, type TestPlatform } from '../../helpers/test-platform.ts';

const origin = 'http://slides.test';

const deckPlan = {
  kind: 'deck',
  title: 'Solar <Energy> & Storage',
  theme: { name: 'dark' },
  slides: [
    { layout: 'title', title: 'Solar <Energy> & Storage', subtitle: 'A short tour' },
    { layout: 'bullets', title: 'Why solar', bullets: ['Cheapest new power', 'Modular', '太阳能'] },
    {
      layout: 'two_column',
      title: 'Rooftop vs utility',
      left: { heading: 'Rooftop', bullets: ['Near demand'] },
      right: { heading: 'Utility', bullets: ['Lowest cost'] },
    },
    { layout: 'quote', text: 'The stone age did not end for lack of stone.', attribution: 'Yamani' },
  ],
};

function planReply(plan: unknown, usage = { promptTokens: 120, completionTokens: 80 }) {
  return jsonReply(vllmCompletion({ content: typeof plan === 'string' ? plan : JSON.stringify(plan), usage }));
}

function input(text: string, ownerKeyId: string, conversationId?: string): AgentInput {
  return {
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    variables: {},
    ownerKeyId,
    requestId: 'slides-test-request',
    signal: new AbortController().signal,
    ...(conversationId === undefined ? {} : { conversationId }),
  };
}

async function collect(events: AsyncIterable<AgentEvent>) {
  let text = '';
  let done: Extract<AgentEvent, { kind: 'done' }> | undefined;
  for await (const event of events) {
    if (event.kind === 'delta') text += event.text;
    else done = event;
  }
  assert.ok(done, 'the run ends with a done event');
  return { text, done };
}

describe('slides_glm_agent (loopback chat engine, real Chromium)', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  let agent: SlidesAgent;
  const owner = 'slides-owner';

  before(async () => {
    engine = await startFakeOpenAiServer();
    test = await startTestPlatform({
      config: {
        models: { 'planner-model': { backend: 'openai-compatible', baseUrl: engine.baseUrl } },
        agents: { slides_glm_agent: { model: 'planner-model' } },
      },
    });
    agent = createSlidesAgent({
      config: test.platform.config,
      backends: test.platform.backends,
      blobs: test.platform.blobs,
      conversations: new AgentConversationRepository(test.platform.database),
    });
  });

  after(async () => {
    await agent.close();
    await test.close();
    await engine.close();
  });

  /** The bytes behind a signed download URL, through the platform's own GET /blobs route. */
  async function download(url: string): Promise<Buffer> {
    assert.ok(url.startsWith(`${origin}/blobs/slides/`), url);
    const parsed = new URL(url);
    const response = await test.app.inject({ method: 'GET', url: `${parsed.pathname}${parsed.search}` });
    assert.equal(response.statusCode, 200);
    return response.rawPayload;
  }

  async function conversationItems(conversationId: string, includePdf: boolean, pages: { position: number; width: number; height: number }[] = []) {
    const items = await agent.conversation({ ownerKeyId: owner, conversationId, includePdf, pages }, origin);
    assert.ok(items);
    return items;
  }

  async function pdfOf(items: readonly ConversationItem[]) {
    const file = items.find((item) => item.type === 'file_url');
    assert.ok(file);
    assert.deepEqual([file.tagCn, file.tagEn], ['PDF', 'PDF']);
    const bytes = await download(file.url);
    assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
    return { bytes, document: await PDFDocument.load(bytes) };
  }

  function roundedSizes(document: PDFDocument) {
    return document.getPages().map((page) => ({ width: Math.round(page.getWidth()), height: Math.round(page.getHeight()) }));
  }

  let conversationId = '';

  it('plans a deck as JSON, draws a 4-page 960×540 pt PDF and 1280×720 PNG pages, and answers with the titles', async () => {
    engine.enqueue(planReply(deckPlan));
    const { text, done } = await collect(agent.run(input('Make slides about solar energy', owner)));
    assert.equal(done.finishReason, 'stop');
    assert.deepEqual(done.usage, { promptTokens: 120, completionTokens: 80, calls: 1 });
    assert.ok(done.conversationId);
    conversationId = done.conversationId;
    assert.match(text, /Created the slides "Solar <Energy> & Storage", 4 slides/);
    assert.match(text, /2\. Why solar\n3\. Rooftop vs utility/);

    const sent = engine.requests.at(-1)?.body;
    // JSON mode, in the form OpenAI-compatible engines constrain (openai-chat-body.ts).
    assert.deepEqual(sent?.['response_format'], { type: 'json_schema', json_schema: { name: 'json_object', schema: { type: 'object' } } });
    assert.match(JSON.stringify(sent?.['messages']), /Make slides about solar energy/);

    const items = await conversationItems(conversationId, true);
    assert.deepEqual(
      items.map((item) => [item.type, item.tagCn, item.tagEn]),
      [
        ['image_url', '第1页', 'Page 1'],
        ['image_url', '第2页', 'Page 2'],
        ['image_url', '第3页', 'Page 3'],
        ['image_url', '第4页', 'Page 4'],
        ['file_url', 'PDF', 'PDF'],
      ],
    );
    const { bytes, document } = await pdfOf(items);
    assert.equal(document.getPageCount(), 4);
    assert.deepEqual(roundedSizes(document), Array(4).fill({ width: 960, height: 540 }));
    // The plan's text is in the PDF as text, escaped markup shown literally.
    const pdf = await getDocument({ data: new Uint8Array(bytes) }).promise;
    const firstPage = await (await pdf.getPage(1)).getTextContent();
    const words = firstPage.items.map((item) => ('str' in item ? item.str : '')).join('');
    assert.match(words, /Solar <Energy> & Storage/);
    await pdf.destroy();

    for (const item of items.filter((found) => found.type === 'image_url')) {
      const image = await decodeImage(await download(item.url));
      assert.deepEqual([image.width, image.height], [1280, 720]);
      // The dark theme's background (#111827) fills the corner.
      assert.deepEqual([...image.data.subarray(0, 3)], [0x11, 0x18, 0x27]);
    }
  });

  it('revises the plan when a message comes with the same conversation_id: the model sees the previous plan', async () => {
    assert.ok(conversationId, 'runs after the first test');
    engine.enqueue(planReply({ ...deckPlan, theme: { name: 'light' }, slides: deckPlan.slides.slice(0, 2) }));
    const { text, done } = await collect(agent.run(input('只保留前两页', owner, conversationId)));
    assert.equal(done.conversationId, conversationId);
    assert.match(text, /^已更新幻灯片《Solar <Energy> & Storage》，共 2 页：/);
    const prompt = engine.requests.at(-1)?.body['messages'] as { role: string; content: string }[];
    assert.deepEqual(
      prompt.slice(1).map((message) => message.role),
      ['user', 'assistant', 'user'],
    );
    assert.equal(prompt[1]?.content, 'Make slides about solar energy');
    assert.match(prompt[2]?.content ?? '', /"title":"Rooftop vs utility"/, 'the previous plan is in the prompt');
    assert.match(prompt[3]?.content ?? '', /^Revise the current plan[^]*只保留前两页$/);

    const items = await conversationItems(conversationId, true);
    assert.equal(items.filter((item) => item.type === 'image_url').length, 2);
    const { document } = await pdfOf(items);
    assert.equal(document.getPageCount(), 2);
    const image = await decodeImage(await download(items[0]?.url ?? ''));
    assert.deepEqual([...image.data.subarray(0, 3)], [0xff, 0xff, 0xff], 'the revised light theme');
  });

  it('conversation(): include_pdf false gives only pages; a size override redraws that page as PNG and in the PDF', async () => {
    const withoutPdf = await conversationItems(conversationId, false);
    assert.deepEqual(
      withoutPdf.map((item) => item.type),
      ['image_url', 'image_url'],
    );

    const resized = await conversationItems(conversationId, true, [{ position: 2, width: 540, height: 720 }]);
    assert.equal(resized[0]?.url.split('?')[0], withoutPdf[0]?.url.split('?')[0], 'page 1 keeps its stored PNG');
    const second = await decodeImage(await download(resized[1]?.url ?? ''));
    assert.deepEqual([second.width, second.height], [720, 960]);
    const { document } = await pdfOf(resized);
    assert.deepEqual(roundedSizes(document), [
      { width: 960, height: 540 },
      { width: 540, height: 720 },
    ]);

    await assert.rejects(conversationItems(conversationId, false, [{ position: 3, width: 540, height: 720 }]), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, '1214');
      assert.match(error.message, /pages\[0\]\.position.*1 to 2/);
      return true;
    });
  });

  it('another key, or an id that does not exist, has no conversation', async () => {
    assert.equal(await agent.conversation({ ownerKeyId: 'someone-else', conversationId, includePdf: true, pages: [] }, origin), undefined);
    assert.equal(await agent.conversation({ ownerKeyId: owner, conversationId: 'no-such-id', includePdf: true, pages: [] }, origin), undefined);
    const calls = engine.requests.length;
    await assert.rejects(collect(agent.run(input('more', 'someone-else', conversationId))), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, '404');
      return true;
    });
    assert.equal(engine.requests.length, calls, 'the model is not called for a conversation the key cannot see');
  });

  it('sends an unreadable answer back once with the problem, then uses the second answer (2 calls)', async () => {
    engine.enqueue(
      planReply('Sure! Here are your slides: {"title": "Oops", "slides": [}', { promptTokens: 50, completionTokens: 10 }),
      planReply({
        kind: 'poster',
        title: 'Clean-up day',
        theme: 'forest',
        sections: [
          { heading: 'When', text: 'Saturday' },
          { heading: 'Where', text: 'The park' },
        ],
      }),
    );
    const { text, done } = await collect(agent.run(input('A poster for our clean-up day', owner)));
    assert.deepEqual(done.usage, { promptTokens: 170, completionTokens: 90, calls: 2 });
    assert.equal(text, 'Created the poster "Clean-up day".');
    const retry = engine.requests.at(-1)?.body['messages'] as { role: string; content: string }[];
    assert.equal(retry.at(-2)?.content, 'Sure! Here are your slides: {"title": "Oops", "slides": [}');
    assert.match(retry.at(-1)?.content ?? '', /could not be used: the answer is not valid JSON \(/);
    const items = await agent.conversation({ ownerKeyId: owner, conversationId: done.conversationId ?? '', includePdf: true, pages: [] }, origin);
    assert.ok(items);
    const { document } = await pdfOf(items);
    assert.deepEqual(roundedSizes(document), [{ width: 842, height: 1191 }], 'one A3 portrait page');
    const poster = await decodeImage(await download(items[0]?.url ?? ''));
    assert.deepEqual([poster.width, poster.height], [1123, 1588]);
  });

  it('fails with 1230 when the second answer is unreadable too', async () => {
    engine.enqueue(planReply('not json'), planReply({ title: 'No slides', slides: [] }));
    await assert.rejects(collect(agent.run(input('Slides please', owner))), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, '1230');
      assert.match(error.message, /after 2 tries: a deck needs a non-empty "slides" array/);
      return true;
    });
  });

  it('without agents.slides_glm_agent.model plans on the default chat model (1221 naming its file while it is not downloaded)', async () => {
    const unconfigured = createSlidesAgent({
      config: {},
      backends: test.platform.backends,
      blobs: test.platform.blobs,
      conversations: new AgentConversationRepository(test.platform.database),
    });
    await assert.rejects(collect(unconfigured.run(input('Slides please', owner))), (error: unknown) => {
      assert.ok(error instanceof EngineFailure);
      const answer = apiErrorOf(error);
      assert.equal(answer.code, '1221');
      assert.match(answer.message, /glm-edge-1\.5b-chat.*model-platform pull/);
      return true;
    });
    await unconfigured.close();
  });
});
