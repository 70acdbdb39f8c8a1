import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answer } from '../agents/translation/translation-fixtures.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { waitFor } from './credit-test-kit.ts';

const url = '/api/paas/v4/v1/agents';
const translate = (stream: boolean) => ({
  agent_id: 'general_translation',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'The early bird catches the worm.' }] }],
  stream,
  custom_variables: { source_lang: 'en', target_lang: 'zh-CN', strategy: 'two_step' },
});

/** Agents are priced by agent_id: reserved before the agent runs, settled to what its usage record costs. */
describe('prepaid credit on agent calls', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  before(async () => {
    engine = await startFakeOpenAiServer();
    test = await startTestPlatform({
      config: {
        models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'zai-org/GLM' } },
        agents: { general_translation: { model: 'glm-4.7' } },
        billing: { prices: { general_translation: { perCall: 50, perPromptToken: 1, perCompletionToken: 2 } } },
      },
    });
  });
  after(async () => {
    await test.close();
    await engine.close();
  });

  const run = async (stream: boolean) => {
    const { key } = await test.platform.keyAdmin.create({ policy: { credit: { balance: 1_000_000 } } });
    const keyId = key.split('.')[0] ?? '';
    engine.enqueue(answer('早的鸟抓虫。', { promptTokens: 31, completionTokens: 7 }), answer('早起的鸟儿有虫吃。', { promptTokens: 52, completionTokens: 9 }));
    const response = await postJson(test, url, translate(stream), { authorization: `Bearer ${key}` });
    assert.equal(response.statusCode, 200, response.body);
    await waitFor(
      async () => (await test.platform.keyAdmin.get(keyId))?.creditHeld,
      (held) => held === 0,
      'settled',
    );
    await test.platform.usage.flush();
    const ledger = await test.platform.ledger.listForKey(keyId);
    return { consumed: 1_000_000 - ((await test.platform.credits.balance(keyId)) ?? 0), ledger };
  };

  it('a sync agent call settles to its real cost: 50 + 83 x 1 + 16 x 2', async () => {
    const { consumed, ledger } = await run(false);
    assert.equal(consumed, 165);
    assert.deepEqual(
      ledger.map((record) => [record.model, record.endpoint, record.cost]),
      [['general_translation', 'agents', 165]],
    );
  });

  it('a streamed agent call settles the same way', async () => {
    const { consumed, ledger } = await run(true);
    assert.equal(consumed, 165);
    assert.equal(
      ledger.reduce((total, record) => total + (record.cost ?? 0), 0),
      165,
    );
  });

  it('an agent without a price is refused for a credit key', async () => {
    const { key } = await test.platform.keyAdmin.create({ policy: { credit: { balance: 1_000_000, prices: {} } } });
    const body = { ...translate(false), agent_id: 'slides_glm_agent' };
    assertPlatformError(await postJson(test, url, body, { authorization: `Bearer ${key}` }), { status: 429, code: '1113', mentions: ['slides_glm_agent'] });
  });
});
