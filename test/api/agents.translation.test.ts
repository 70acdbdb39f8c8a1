import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { formatApiKey } from '../../src/core/auth/api-key.ts';
import { answer, promptOf, userPromptOf } from '../agents/translation/translation-fixtures.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { jsonReply, sseReply, startFakeOpenAiServer, vllmChunk, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { postForm } from '../helpers/multipart-form.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const url = '/api/paas/v4/v1/agents';

function translate(text: string, variables: Record<string, unknown> = {}, stream = false) {
  return { agent_id: 'general_translation', messages: [{ role: 'user', content: [{ type: 'text', text }] }], stream, custom_variables: variables };
}

/** POST /v1/agents with general_translation end to end: the real agent, a loopback engine, real uploads. */
describe('general_translation over HTTP (loopback chat engine)', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  before(async () => {
    engine = await startFakeOpenAiServer();
    test = await startTestPlatform({
      config: {
        models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'zai-org/GLM' } },
        agents: { general_translation: { model: 'glm-4.7' } },
      },
    });
  });
  beforeEach(() => engine.reset());
  after(async () => {
    await test.close();
    await engine.close();
  });

  it('answers synchronously: the refined translation as one message, usage summed over both calls with total_calls', async () => {
    engine.enqueue(answer('早的鸟抓虫。', { promptTokens: 31, completionTokens: 7 }), answer('早起的鸟儿有虫吃。', { promptTokens: 52, completionTokens: 9 }));
    const response = await postJson(
      test,
      url,
      translate('The early bird catches the worm.', { source_lang: 'en', target_lang: 'zh-CN', strategy: 'two_step' }),
    );
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as Record<string, unknown>;
    assert.equal(body['agent_id'], 'general_translation');
    assert.equal(typeof body['id'], 'string');
    assert.deepEqual(body['choices'], [
      { index: 0, finish_reason: 'stop', messages: [{ role: 'assistant', content: { type: 'text', text: '早起的鸟儿有虫吃。' } }] },
    ]);
    assert.deepEqual(body['usage'], { prompt_tokens: 83, completion_tokens: 16, total_tokens: 99, total_calls: 2 });
    assert.equal(engine.requests.length, 2);
    assert.equal(engine.requests[0]?.body['model'], 'zai-org/GLM');
    assert.match(userPromptOf(engine.requests[1]), /早的鸟抓虫。/);
  });

  it('streams: every frame carries agent_id, the text arrives in deltas, the last frame has finish_reason and usage, then [DONE]', async () => {
    engine.enqueue(answer('Guten Morgen, Welt!', { promptTokens: 20, completionTokens: 6 }));
    const response = await postJson(test, url, translate('Good morning, world!', { source_lang: 'en', target_lang: 'de' }, true));
    assert.equal(response.statusCode, 200, response.body);
    const frames = parseSseBody(response.body);
    assert.ok(frames.length >= 3);
    for (const frame of frames) assert.equal(frame['agent_id'], 'general_translation');
    const choices = frames.map((frame) => (frame['choices'] as { delta: { content: string }; finish_reason: string | null }[])[0]);
    assert.equal(choices.map((choice) => choice?.delta.content).join(''), 'Guten Morgen, Welt!');
    assert.deepEqual(
      choices.slice(0, -1).map((choice) => choice?.finish_reason),
      choices.slice(0, -1).map(() => null),
    );
    const last = frames.at(-1);
    assert.equal(choices.at(-1)?.finish_reason, 'stop');
    assert.deepEqual(last?.['usage'], { prompt_tokens: 20, completion_tokens: 6, total_tokens: 26, total_calls: 1 });
  });

  it('an engine failure before any output is an HTTP error body; a break after it ends the stream with network_error', async () => {
    // Dropped before any answer on a connection kept alive from earlier calls, the request is sent
    // once more on a new connection, and the engine drops that one too.
    engine.enqueue({ kind: 'reset' }, { kind: 'reset' });
    assertPlatformError(await postJson(test, url, translate('Hello', {}, true)), { status: 500, code: '1234', mentions: ['glm-4.7'] });
    engine.enqueue(sseReply([vllmChunk({ role: 'assistant', content: '' }), vllmChunk({ content: '你' })], { cutAfter: 2 }));
    const frames = parseSseBody((await postJson(test, url, translate('Hello', {}, true))).body);
    const last = frames.at(-1) as { agent_id: string; choices: { finish_reason: string }[]; usage: { total_calls: number } };
    assert.equal(last.agent_id, 'general_translation');
    assert.equal(last.choices[0]?.finish_reason, 'network_error');
    assert.equal(last.usage.total_calls, 1);

    // The failures cooled the engine down; its health probe (a model listing) brings it back before
    // the next test, so that no probe lands among that test's scripted answers.
    engine.setDefault(jsonReply({ object: 'list', data: [{ id: 'zai-org/GLM', object: 'model' }] }));
    const healthy = () => test.platform.backends.deploymentStates().every((state) => state.state === 'healthy');
    for (const until = Date.now() + 30_000; !healthy() && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(healthy(), 'the engine is healthy again once its probe answers');
  });

  it('rejects language codes the spec does not list, naming the field, before any engine call', async () => {
    assertPlatformError(await postJson(test, url, translate('Hello', { target_lang: 'zh' })), {
      status: 400,
      code: '1214',
      mentions: ['custom_variables.target_lang'],
    });
    assertPlatformError(await postJson(test, url, translate('Hello', { source_lang: 'en-GB' })), {
      status: 400,
      code: '1214',
      mentions: ['custom_variables.source_lang'],
    });
    assert.equal(engine.requests.length, 0);
  });

  it('uses a glossary uploaded through /files: its terms in the prompt, a missing term corrected by one more call', async () => {
    const upload = await postForm(test, '/paas/v4/files', [
      ['purpose', 'user_data'],
      ['file', Buffer.from('source\ttarget\nmachine learning\t机器学习\nmodel\t模型\nsatellite\t卫星\n'), 'glossary.tsv', 'text/tab-separated-values'],
    ]);
    assert.equal(upload.statusCode, 200, upload.body);
    const glossary = (upload.json() as { id: string }).id;
    engine.enqueue(answer('机器学习需要好的模式。'), answer('机器学习需要好的模型。'));
    const response = await postJson(test, url, translate('Machine learning needs a good model.', { source_lang: 'en', glossary }));
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as { choices: { messages: { content: { text: string } }[] }[]; usage: { total_calls: number } };
    assert.equal(body.choices[0]?.messages[0]?.content.text, '机器学习需要好的模型。');
    assert.equal(body.usage.total_calls, 2);
    assert.match(promptOf(engine.requests[0]), /- "machine learning" → "机器学习"\n- "model" → "模型"/);
    assert.doesNotMatch(promptOf(engine.requests[0]), /卫星/);
    assert.match(userPromptOf(engine.requests[1]), /- "model" must be translated as "模型"/);

    const other = formatApiKey(await test.platform.keys.create({ name: 'other' }));
    const foreign = await postJson(test, url, translate('A model.', { glossary }), { authorization: `Bearer ${other}` });
    assertPlatformError(foreign, { status: 400, code: '1214', mentions: ['custom_variables.glossary', glossary] });
  });
});
