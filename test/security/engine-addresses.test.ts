import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openMetricsWarning } from '../../src/http/metrics.route.ts';
import { freePort } from '../tasks/task-test-kit.ts';
import { startFakeOpenAiServer, vllmCompletion, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const user = [{ role: 'user', content: 'Hi' }];

/** What one answer showed its caller: status line, headers and body, as one text to search. */
interface Answer {
  readonly what: string;
  readonly text: string;
}

describe('engine addresses reach no caller but an admin', () => {
  let engine: FakeOpenAiServer;
  let deadPort: number;
  let test: TestPlatform;
  let admin: string;
  /** Every engine's `host:port`, and each port alone after a colon. */
  let addresses: string[];

  before(async () => {
    engine = await startFakeOpenAiServer();
    engine.setDefault({ kind: 'json', body: vllmCompletion({ content: 'Hi!', usage: { promptTokens: 3, completionTokens: 2 } }) });
    deadPort = await freePort();
    const live = { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'fake/model' } as const;
    const dead = { backend: 'openai-compatible', baseUrl: `http://127.0.0.1:${deadPort}/v1`, upstreamModel: 'fake/model' } as const;
    test = await startTestPlatform({
      config: {
        models: {
          'glm-4.7': {
            routing: 'priority',
            deployments: [
              { ...dead, priority: 0 },
              { ...live, priority: 1 },
            ],
          },
          'glm-4.6': live,
          'glm-gone': dead,
        },
      },
    });
    admin = `Bearer ${(await test.platform.keyAdmin.create({ name: 'ops', policy: { scope: 'admin' } })).key}`;
    const livePort = new URL(engine.baseUrl).port;
    addresses = [new URL(engine.baseUrl).host, `127.0.0.1:${deadPort}`, `:${livePort}`, `:${deadPort}`];
  });
  after(async () => {
    await test.close();
    await engine.close();
  });

  async function ask(what: string, method: 'GET' | 'POST', url: string, authorization: string | undefined, body?: unknown): Promise<Answer> {
    const response = await test.app.inject({
      method,
      url,
      headers: { ...(authorization === undefined ? {} : { authorization }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    const headers = Object.entries(response.headers)
      .map(([name, value]) => `${name}: ${String(value)}`)
      .join('\n');
    return { what, text: `${response.statusCode}\n${headers}\n\n${response.body}` };
  }

  const leaks = (answer: Answer) => addresses.filter((address) => answer.text.includes(address));

  it('no answer to a non-admin key, nor /readyz or /metrics, holds an engine host or port', async () => {
    const key = test.authorization;
    const answers = [
      // Served after failing over from the dead deployment: the served-by header names the live one.
      await ask('chat failed over', 'POST', '/paas/v4/chat/completions', key, { model: 'glm-4.7', messages: user }),
      await ask('chat on one engine', 'POST', '/paas/v4/chat/completions', key, { model: 'glm-4.6', messages: user }),
      await ask('chat streamed', 'POST', '/paas/v4/chat/completions', key, { model: 'glm-4.6', messages: user, stream: true }),
      await ask('chat on a dead engine', 'POST', '/paas/v4/chat/completions', key, { model: 'glm-gone', messages: user }),
      await ask('models', 'GET', '/paas/v4/models', key),
      await ask('deployments as a non-admin', 'GET', '/admin/deployments', key),
      await ask('readiness', 'GET', '/readyz', undefined),
      await ask('metrics', 'GET', '/metrics', undefined),
    ];
    const chat = answers[0]?.text ?? '';
    assert.match(chat, /^200\n/, chat);
    assert.match(chat, /x-model-platform-deployment: glm-4\.7#2/, 'the served-by header names the deployment by model and position');
    assert.match(answers[7]?.text ?? '', /model_platform_engine_call_duration_seconds_count\{model="glm-4\.7",deployment="glm-4\.7#2"/);
    assert.deepEqual(
      answers.map((answer) => ({ what: answer.what, leaks: leaks(answer) })).filter((answer) => answer.leaks.length > 0),
      [],
    );
  });

  it('the admin listing names each engine address', async () => {
    const listing = await ask('deployments as an admin', 'GET', '/admin/deployments', admin);
    assert.match(listing.text, /^200\n/, listing.text);
    for (const address of addresses.slice(0, 2)) assert.ok(listing.text.includes(address), `${address} in ${listing.text}`);
  });

  it('start-up says when /metrics is open to the network without a token', () => {
    assert.match(openMetricsWarning('0.0.0.0', undefined) ?? '', /\/metrics is open to the network without a token.*MODEL_PLATFORM_METRICS_TOKEN/);
    assert.equal(openMetricsWarning('0.0.0.0', 'secret'), undefined);
    assert.equal(openMetricsWarning('127.0.0.1', undefined), undefined);
  });
});
