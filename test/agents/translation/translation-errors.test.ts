import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Agent } from '../../../src/agents/agent.ts';
import { languageNames, sourceLanguageCodes, targetLanguageCodes } from '../../../src/agents/translation/translation-languages.ts';
import type { ModelBackends } from '../../../src/core/backends/model-backends.ts';
import type { ApiError } from '../../../src/core/errors/api-error.ts';
import { assertApiError, rejection } from '../../helpers/api-error-assertions.ts';
import { jsonReply, sseReply, startFakeOpenAiServer, vllmChunk, vllmError, type FakeOpenAiServer } from '../../helpers/fake-openai-server.ts';
import { answer, MemoryFileStore, runToEnd, translationAgent, translationInput } from './translation-fixtures.ts';

describe('translation agent: refusals and failures', () => {
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

  it('has a prompt name for every language code of the spec', () => {
    assert.equal(sourceLanguageCodes.length, 41);
    assert.equal(targetLanguageCodes.length, 42);
    for (const code of targetLanguageCodes) assert.ok(code in languageNames, code);
  });

  it('accepts every code of the spec and refuses any other, naming the field (1214)', async () => {
    engine.setDefault(answer('ok'));
    for (const code of sourceLanguageCodes) await runToEnd(agent, translationInput('x', { source_lang: code, target_lang: 'en' }));
    for (const code of targetLanguageCodes) await runToEnd(agent, translationInput('x', { target_lang: code }));
    assert.equal(engine.requests.length, sourceLanguageCodes.length + targetLanguageCodes.length);
    for (const [variables, field] of [
      [{ source_lang: 'klingon' }, 'custom_variables.source_lang'],
      [{ source_lang: 'en-US' }, 'custom_variables.source_lang'],
      [{ target_lang: 'auto' }, 'custom_variables.target_lang'],
      [{ target_lang: 'zh' }, 'custom_variables.target_lang'],
      [{ strategy: 'literal' }, 'custom_variables.strategy'],
      [{ strategy_config: { cot: { reason_lang: 'both' } } }, 'custom_variables.strategy_config.cot.reason_lang'],
    ] as const) {
      assertApiError(await rejection(runToEnd(agent, translationInput('x', variables))), '1214', field);
    }
  });

  it('refuses media parts and messages without text, before calling the engine', async () => {
    const withFile = {
      ...translationInput('x'),
      messages: [
        {
          role: 'user' as const,
          content: [
            { type: 'text' as const, text: 'Hi' },
            { type: 'file_url' as const, url: 'https://example.com/a.pdf' },
          ],
        },
      ],
    };
    assertApiError(await rejection(runToEnd(agent, withFile)), '1214', 'messages[0].content[1].type', 'text parts only');
    assertApiError(await rejection(runToEnd(agent, translationInput('   '))), '1214', 'messages');
    assert.equal(engine.requests.length, 0);
  });

  it('says which config key to set when no model is configured, and when the model is not in the catalog (1221)', async () => {
    const unconfigured = translationAgent(engine, new MemoryFileStore(), {});
    assertApiError(await rejection(runToEnd(unconfigured.agent, translationInput('x'))), '1221', 'agents.general_translation.model');
    const unknown = translationAgent(engine, new MemoryFileStore(), { agents: { general_translation: { model: 'no-such-model' } } });
    assertApiError(await rejection(runToEnd(unknown.agent, translationInput('x'))), '1221', 'no-such-model', 'agents.general_translation.model');
  });

  it('an engine error before any output is thrown (the client gets an HTTP error), also from an earlier step', async () => {
    engine.enqueue(vllmError(400, 'This model maximum context length is 10 tokens'));
    assertApiError(await rejection(runToEnd(agent, translationInput('x'))), '1261');
    // The second step's connection, kept alive from the first, is dropped before any answer: the
    // request is sent once more on a new connection, and the engine drops that one too.
    engine.enqueue(answer('literal'), { kind: 'reset' }, { kind: 'reset' });
    assertApiError(await rejection(runToEnd(agent, translationInput('x', { strategy: 'two_step' }))), '1234', 'translator');
  });

  it('a stream that breaks after text went out ends with network_error, the call counted', async () => {
    engine.enqueue(sseReply([vllmChunk({ role: 'assistant', content: '' }), vllmChunk({ content: 'Half a transl' })], { cutAfter: 2 }));
    const run = await runToEnd(agent, translationInput('x'));
    assert.equal(run.text, 'Half a transl');
    assert.equal(run.done.finishReason, 'network_error');
    assert.equal(run.done.usage.calls, 1);
  });

  it('an earlier step cut by the token limit makes the answer end with length', async () => {
    engine.enqueue(jsonReply(truncated('LITERAL (cut', 'length')), answer('FINAL'));
    const run = await runToEnd(agent, translationInput('x', { strategy: 'two_step' }));
    assert.equal(run.text, 'FINAL');
    assert.equal(run.done.finishReason, 'length');
  });

  it("flagged content ends the run with 1301, whose contentFilter names the model's answer", async () => {
    engine.enqueue(jsonReply(truncated('', 'sensitive')));
    const error = await rejection(runToEnd(agent, translationInput('x', { strategy: 'two_step' })));
    assertApiError(error, '1301');
    assert.deepEqual((error as ApiError).toBody().contentFilter, [{ role: 'assistant', level: 1 }]);
  });

  it('stops the engine call when the client goes away', async () => {
    engine.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const running = rejection(runToEnd(agent, translationInput('x', {}, controller.signal)));
    while (engine.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('client left'));
    await engine.waitForClientClose(0, 2000);
    await running;
  });
});

/** A non-streamed completion that ended for `reason`. */
function truncated(content: string, reason: string) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'fake/model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: reason }],
    usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
  };
}
