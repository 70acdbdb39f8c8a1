import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Agent } from '../../../src/agents/agent.ts';
import type { ModelBackends } from '../../../src/core/backends/model-backends.ts';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../../helpers/fake-openai-server.ts';
import { answer, MemoryFileStore, messagesOf, promptOf, runToEnd, translationAgent, translationInput, userPromptOf } from './translation-fixtures.ts';

const source = 'The early bird catches the worm.';

/**
 * Each strategy's call graph against a loopback engine that records every call: how many calls,
 * in which order, which are streamed, and what each prompt carries from the calls before it.
 */
describe('translation strategies: the calls each pipeline makes', () => {
  let engine: FakeOpenAiServer;
  let backends: ModelBackends;
  let agent: Agent;
  before(async () => {
    engine = await startFakeOpenAiServer();
    ({ agent, backends } = translationAgent(engine, new MemoryFileStore()));
  });
  beforeEach(() => engine.reset());
  after(async () => {
    await backends.close();
    await engine.close();
  });

  it('general: one streamed call naming both languages, with the suggestion, the answer streamed as deltas', async () => {
    engine.enqueue(answer('早起的鸟儿有虫吃。', { promptTokens: 40, completionTokens: 9 }));
    const run = await runToEnd(
      agent,
      translationInput(source, { source_lang: 'en', target_lang: 'zh-CN', strategy_config: { general: { suggestion: 'Use a common Chinese proverb.' } } }),
    );
    assert.equal(engine.requests.length, 1);
    const [call] = engine.requests;
    assert.equal(call?.body['stream'], true);
    assert.equal(call?.body['model'], 'fake/translator');
    assert.equal(call?.body['temperature'], 0.3);
    assert.deepEqual(call?.body['chat_template_kwargs'], { enable_thinking: false }, 'no hidden reasoning in pipeline calls');
    assert.deepEqual(
      messagesOf(call).map((message) => message.role),
      ['system', 'user'],
    );
    const prompt = userPromptOf(call);
    assert.match(prompt, /from English into Simplified Chinese/);
    assert.match(prompt, /Follow the user's suggestion on how to translate it: Use a common Chinese proverb\./);
    assert.match(prompt, /<source_text>\nThe early bird catches the worm\.\n<\/source_text>/);
    assert.equal(run.text, '早起的鸟儿有虫吃。');
    assert.ok(run.deltas.length > 1, 'the answer arrives in pieces');
    assert.deepEqual(run.done.usage, { promptTokens: 40, completionTokens: 9, calls: 1 });
    assert.equal(run.done.finishReason, 'stop');
  });

  it('general without a suggestion says nothing about one; auto source asks the model to detect the language', async () => {
    engine.enqueue(answer('Der frühe Vogel fängt den Wurm.'));
    await runToEnd(agent, translationInput(source, { target_lang: 'de' }));
    const prompt = userPromptOf(engine.requests[0]);
    assert.doesNotMatch(prompt, /suggestion/);
    assert.match(prompt, /into German \(first detect the language of the text\)/);
  });

  it('paraphrase: one streamed call asking for a free rendering, at a higher temperature', async () => {
    engine.enqueue(answer('笨鸟先飞。'));
    const run = await runToEnd(agent, translationInput(source, { source_lang: 'en', strategy: 'paraphrase' }));
    assert.equal(engine.requests.length, 1);
    assert.equal(engine.requests[0]?.body['stream'], true);
    assert.equal(engine.requests[0]?.body['temperature'], 0.7);
    assert.match(userPromptOf(engine.requests[0]), /Render the text freely from English into Simplified Chinese/);
    assert.match(userPromptOf(engine.requests[0]), /rather than translating word for word/);
    assert.equal(run.text, '笨鸟先飞。');
  });

  it('two_step: a literal translation, then a streamed refinement that contains it', async () => {
    engine.enqueue(
      answer('早的鸟抓住虫。', { promptTokens: 30, completionTokens: 6 }),
      answer('早起的鸟儿有虫吃。', { promptTokens: 50, completionTokens: 8 }),
    );
    const run = await runToEnd(agent, translationInput(source, { source_lang: 'en', strategy: 'two_step' }));
    assert.equal(engine.requests.length, 2);
    const [literal, refine] = engine.requests;
    assert.equal(literal?.body['stream'], false, 'earlier steps are not streamed');
    assert.equal(literal?.body['temperature'], 0.1);
    assert.match(userPromptOf(literal), /literally/);
    assert.equal(refine?.body['stream'], true);
    assert.match(userPromptOf(refine), /<literal_translation>\n早的鸟抓住虫。\n<\/literal_translation>/);
    assert.match(userPromptOf(refine), /<source_text>\nThe early bird catches the worm\.\n<\/source_text>/);
    assert.equal(run.text, '早起的鸟儿有虫吃。', 'only the last step is the answer');
    assert.deepEqual(run.done.usage, { promptTokens: 80, completionTokens: 14, calls: 2 });
  });

  it('three_step: literal, critique of the literal, then a refinement that carries both', async () => {
    engine.enqueue(answer('LITERAL-OUT'), answer('1. CRITIQUE-OUT'), answer('FINAL-OUT'));
    const run = await runToEnd(agent, translationInput(source, { source_lang: 'en', target_lang: 'ja', strategy: 'three_step' }));
    assert.equal(engine.requests.length, 3);
    const [literal, critique, refine] = engine.requests;
    assert.deepEqual(
      engine.requests.map((request) => request.body['stream']),
      [false, false, true],
    );
    assert.match(userPromptOf(literal), /from English into Japanese literally/);
    assert.match(userPromptOf(critique), /Review the literal translation into Japanese/);
    assert.match(userPromptOf(critique), /<literal_translation>\nLITERAL-OUT\n/);
    assert.doesNotMatch(userPromptOf(critique), /CRITIQUE-OUT/);
    assert.match(userPromptOf(refine), /<literal_translation>\nLITERAL-OUT\n/);
    assert.match(userPromptOf(refine), /<review>\n1\. CRITIQUE-OUT\n<\/review>/);
    assert.equal(run.text, 'FINAL-OUT');
    assert.equal(run.done.usage.calls, 3);
  });

  it('reflection: translate, reflect on the draft, then improve it with the suggestions', async () => {
    engine.enqueue(answer('DRAFT-OUT'), answer('REFLECTION-OUT'), answer('IMPROVED-OUT'));
    const run = await runToEnd(agent, translationInput(source, { source_lang: 'en', target_lang: 'fr', strategy: 'reflection' }));
    assert.equal(engine.requests.length, 3);
    const [draft, reflect, improve] = engine.requests;
    assert.deepEqual(
      engine.requests.map((request) => request.body['stream']),
      [false, false, true],
    );
    assert.match(userPromptOf(draft), /Translate the text from English into French/);
    assert.match(userPromptOf(reflect), /reflect on how to improve the translation/);
    assert.match(userPromptOf(reflect), /<translation>\nDRAFT-OUT\n<\/translation>/);
    assert.match(userPromptOf(improve), /<translation>\nDRAFT-OUT\n<\/translation>/);
    assert.match(userPromptOf(improve), /<suggestions>\nREFLECTION-OUT\n<\/suggestions>/);
    assert.equal(run.text, 'IMPROVED-OUT');
    assert.equal(run.done.usage.calls, 3);
  });

  it("cot: reasoning first (in the source language with reason_lang 'from'), then a translation that uses it", async () => {
    engine.enqueue(answer('REASONING-OUT'), answer('TRANSLATION-OUT'));
    const run = await runToEnd(
      agent,
      translationInput('Il pleut des cordes.', { source_lang: 'fr', target_lang: 'en-GB', strategy: 'cot', strategy_config: { cot: { reason_lang: 'from' } } }),
    );
    assert.equal(engine.requests.length, 2);
    const [reasoning, translation] = engine.requests;
    assert.deepEqual(
      engine.requests.map((request) => request.body['stream']),
      [false, true],
    );
    assert.match(userPromptOf(reasoning), /think it through step by step/);
    assert.match(userPromptOf(reasoning), /Write this reasoning in French\./);
    assert.match(userPromptOf(reasoning), /do not write the final translation yet/);
    assert.match(userPromptOf(translation), /from French into British English/);
    assert.match(userPromptOf(translation), /<reasoning>\nREASONING-OUT\n<\/reasoning>/);
    assert.equal(run.text, 'TRANSLATION-OUT');
  });

  it("cot: reason_lang 'to' (the default) reasons in the target language", async () => {
    engine.setDefault(answer('x'));
    await runToEnd(agent, translationInput('Il pleut.', { source_lang: 'fr', target_lang: 'ko', strategy: 'cot' }));
    await runToEnd(
      agent,
      translationInput('Il pleut.', { source_lang: 'auto', target_lang: 'ko', strategy: 'cot', strategy_config: { cot: { reason_lang: 'from' } } }),
    );
    assert.match(userPromptOf(engine.requests[0]), /Write this reasoning in Korean\./);
    assert.match(userPromptOf(engine.requests[2]), /Write this reasoning in the language of the source text\./);
  });

  it('names special codes in words: Classical Chinese, Cantonese, and Pinyin / IPA as transcriptions', async () => {
    engine.setDefault(answer('x'));
    await runToEnd(agent, translationInput('学而时习之', { source_lang: 'wyw', target_lang: 'yue' }));
    await runToEnd(agent, translationInput('你好', { source_lang: 'zh-CN', target_lang: 'Pinyin' }));
    await runToEnd(agent, translationInput('hello', { source_lang: 'en', target_lang: 'IPA' }));
    assert.match(userPromptOf(engine.requests[0]), /from Classical Chinese \(文言文\) into Cantonese/);
    assert.match(promptOf(engine.requests[1]), /into Hanyu Pinyin/);
    assert.match(promptOf(engine.requests[1]), /tone marks/);
    assert.match(promptOf(engine.requests[2]), /IPA transcription/);
    for (const request of engine.requests) assert.doesNotMatch(userPromptOf(request), /\b(wyw|yue|zh-CN)\b/, 'codes never reach the model');
  });

  it('translates the text parts of all user messages, in order, and sends them as one text', async () => {
    engine.enqueue(answer('x'));
    await runToEnd(agent, {
      ...translationInput(''),
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'First part.' },
            { type: 'text', text: 'Second part.' },
          ],
        },
        { role: 'user', content: 'Third part.' },
      ],
    });
    assert.match(userPromptOf(engine.requests[0]), /<source_text>\nFirst part\.\nSecond part\.\n\nThird part\.\n<\/source_text>/);
  });
});
