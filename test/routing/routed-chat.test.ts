import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deploymentHeader, fallbackModelHeader } from '../../src/http/served-by-headers.ts';
import {
  jsonReply,
  sseReply,
  startFakeOpenAiServer,
  vllmChunk,
  vllmCompletion,
  vllmError,
  vllmUsageChunk,
  type FakeOpenAiServer,
  type FakeReply,
  type RecordedRequest,
} from '../helpers/fake-openai-server.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const url = '/paas/v4/chat/completions';
const user = [{ role: 'user', content: 'Hello' }];

/** An engine that answers every chat (streamed in `chunks` parts `delayMs` apart) and lists its model for the probe. */
function healthyEngine(options: { chunks?: number; delayMs?: number } = {}) {
  return (request: RecordedRequest): FakeReply => {
    if (request.path.endsWith('/models')) return jsonReply({ object: 'list', data: [{ id: 'fake/glm', object: 'model' }] });
    if (request.body['stream'] !== true) return { kind: 'json', body: vllmCompletion({ content: 'Hi!', usage: { promptTokens: 5, completionTokens: 2 } }) };
    const parts = Array.from({ length: options.chunks ?? 3 }, () => vllmChunk({ content: 'x' }));
    return sseReply([...parts, vllmChunk({}, 'stop'), vllmUsageChunk({ promptTokens: 5, completionTokens: parts.length })], { delayMs: options.delayMs ?? 1 });
  };
}

/** Runs `count` calls, `concurrency` at a time; resolves with each call's outcome in call order. */
async function runCalls<Outcome>(count: number, concurrency: number, call: (index: number) => Promise<Outcome>): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array<Outcome>(count);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++) outcomes[index] = await call(index);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return outcomes;
}

/** The default name of each engine's deployment (`<model>#<position>`), as the config below places it. */
const deploymentNames = new Map<FakeOpenAiServer, string>();

function nameOf(engine: FakeOpenAiServer): string {
  const name = deploymentNames.get(engine);
  assert.ok(name !== undefined, 'an engine of the config');
  return name;
}

async function waitFor(condition: () => boolean, withinMs: number, what: string): Promise<void> {
  const until = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('a model served by several engines (fake engines on loopback)', () => {
  const engines: FakeOpenAiServer[] = [];
  let test: TestPlatform;
  let weightedEngines: FakeOpenAiServer[];
  let pool: FakeOpenAiServer[];
  let busy: FakeOpenAiServer[];
  let failing: FakeOpenAiServer[];
  let backup: FakeOpenAiServer;

  before(async () => {
    const start = async () => {
      const engine = await startFakeOpenAiServer();
      engines.push(engine);
      return engine;
    };
    weightedEngines = [await start(), await start(), await start()];
    pool = [await start(), await start(), await start()];
    busy = [await start(), await start(), await start()];
    failing = [await start(), await start()];
    backup = await start();
    for (const engine of [...weightedEngines, ...busy.slice(0, 2), backup]) engine.setDefault(healthyEngine());
    for (const engine of pool) engine.setDefault(healthyEngine({ chunks: 4, delayMs: 4 }));
    busy[2]?.setDefault((request) => (request.path.endsWith('/models') ? jsonReply({ data: [] }) : vllmError(429, 'too many requests', 'RateLimitError')));
    failing[0]?.setDefault((request) =>
      request.path.endsWith('/models') ? jsonReply({ data: [] }) : vllmError(503, 'first engine down', 'ServiceUnavailable'),
    );
    failing[1]?.setDefault((request) =>
      request.path.endsWith('/models') ? jsonReply({ data: [] }) : vllmError(500, 'second engine broke', 'InternalServerError'),
    );
    const deployment = (engine: FakeOpenAiServer, extra: Record<string, unknown> = {}) => ({
      backend: 'openai-compatible' as const,
      baseUrl: engine.baseUrl,
      upstreamModel: 'fake/glm',
      ...extra,
    });
    for (const [model, modelEngines] of [
      ['glm-4.7', weightedEngines],
      ['glm-4.6', pool],
      ['glm-4.5', busy],
      ['glm-5', [backup]],
    ] as const) {
      modelEngines.forEach((engine, index) => deploymentNames.set(engine, `${model}#${index + 1}`));
    }
    test = await startTestPlatform({
      config: {
        models: {
          'glm-4.7': { routing: 'weighted', deployments: weightedEngines.map((engine, index) => deployment(engine, { weight: index + 1 })) },
          'glm-4.6': { deployments: pool.map((engine) => deployment(engine)) },
          'glm-4.5': { deployments: busy.map((engine) => deployment(engine)) },
          'glm-4.5-air': { routing: 'priority', fallbacks: ['glm-5'], deployments: failing.map((engine, index) => deployment(engine, { priority: index })) },
          'glm-4.5-flash': { routing: 'priority', deployments: failing.map((engine, index) => deployment(engine, { priority: index })) },
          'glm-5': deployment(backup),
        },
      },
    });
  });
  after(async () => {
    await test.close();
    await Promise.all(engines.map((engine) => engine.close()));
  });

  it('weighted routing gives each engine its weight within 10% over 1,000 calls, and the header names it', async () => {
    const served = await runCalls(1000, 16, async () => {
      const response = await postJson(test, url, { model: 'glm-4.7', messages: user });
      assert.equal(response.statusCode, 200, response.body);
      return String(response.headers[deploymentHeader]);
    });
    for (const [index, engine] of weightedEngines.entries()) {
      const expected = (1000 * (index + 1)) / 6;
      const got = served.filter((name) => name === nameOf(engine)).length;
      assert.ok(Math.abs(got - expected) <= expected * 0.1, `engine ${index} served ${got}, expected ${expected.toFixed(0)}`);
      assert.equal(engine.requests.filter((request) => request.path.endsWith('/chat/completions')).length, got);
    }
  });

  it('an engine killed during 1,000 streamed calls: no call that had not started on it fails, its running streams end network_error, and it is used again once its probe answers', async () => {
    const [, victim] = pool as [FakeOpenAiServer, FakeOpenAiServer, FakeOpenAiServer];
    // The victim's streams last ~100 ms and send their first event after 5 ms, so that when it
    // dies some of its streams are surely past their first event even on a loaded host (a stream
    // cut before its first event is retried on another engine, as it should be).
    victim.setDefault(healthyEngine({ chunks: 20, delayMs: 5 }));
    let killedAt = Number.POSITIVE_INFINITY;
    const outcomes = await runCalls(1000, 16, async (index) => {
      if (index === 300) {
        killedAt = Date.now();
        await victim.stop();
      }
      const startedAt = Date.now();
      const response = await postJson(test, url, { model: 'glm-4.6', messages: user, stream: true });
      const finish = response.statusCode === 200 ? parseSseBody(response.body).at(-1)?.['choices'] : undefined;
      const reason = Array.isArray(finish) ? (finish[0] as Record<string, unknown>)['finish_reason'] : `status ${response.statusCode}: ${response.body}`;
      return { startedAt, served: String(response.headers[deploymentHeader]), reason };
    });
    const afterKill = outcomes.filter((outcome) => outcome.startedAt > killedAt);
    assert.ok(afterKill.length >= 690);
    assert.deepEqual(
      afterKill.filter((outcome) => outcome.reason !== 'stop'),
      [],
      'every call that started after the kill completes',
    );
    const cut = outcomes.filter((outcome) => outcome.reason !== 'stop');
    assert.ok(cut.length > 0, 'streams were running on the engine when it died');
    for (const outcome of cut) {
      assert.equal(outcome.reason, 'network_error');
      assert.equal(outcome.served, nameOf(victim));
    }
    const states = () => test.platform.backends.deploymentStates().filter((state) => state.model === 'glm-4.6');
    assert.equal(states().find((state) => state.deployment === nameOf(victim))?.state, 'cooling-down');

    await victim.restart();
    await waitFor(() => states().every((state) => state.state === 'healthy'), 15_000, 'the restarted engine is healthy again');
    assert.ok(
      victim.requests.some((request) => request.path.endsWith('/models')),
      'its probe brought it back',
    );
    const again = await runCalls(60, 6, async () => String((await postJson(test, url, { model: 'glm-4.6', messages: user })).headers[deploymentHeader]));
    assert.ok(again.filter((name) => name === nameOf(victim)).length >= 10, `the engine serves again: ${again.join(' ')}`);
  });

  it('an engine answering 429 sheds its load to the others', async () => {
    const outcomes = await runCalls(300, 8, async () => (await postJson(test, url, { model: 'glm-4.5', messages: user })).statusCode);
    assert.deepEqual(
      outcomes.filter((status) => status !== 200),
      [],
    );
    const refused = busy[2]?.requests.filter((request) => request.path.endsWith('/chat/completions')).length ?? 0;
    assert.ok(refused >= 1 && refused <= 15, `the busy engine was asked ${refused} times`);
    const state = test.platform.backends.deploymentStates().find((each) => each.model === 'glm-4.5' && each.deployment === nameOf(busy[2] as FakeOpenAiServer));
    assert.equal(state?.state, 'cooling-down');
    assert.match(state?.lastError ?? '', /too many requests|busy|429/i);
  });

  it('when every deployment fails, the fallback model answers under the requested name, and the headers say so', async () => {
    const response = await postJson(test, url, { model: 'glm-4.5-air', messages: user });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal((response.json() as Record<string, unknown>)['model'], 'glm-4.5-air');
    assert.equal(response.headers[fallbackModelHeader], 'glm-5');
    assert.equal(response.headers[deploymentHeader], nameOf(backup));
    const streamed = await postJson(test, url, { model: 'glm-4.5-air', messages: user, stream: true });
    assert.equal(streamed.statusCode, 200, streamed.body);
    assert.equal(parseSseBody(streamed.body)[0]?.['model'], 'glm-4.5-air');
    assert.equal(streamed.headers[fallbackModelHeader], 'glm-5');
  });

  it('without fallbacks the client gets the engine error of the last attempt', async () => {
    const chats = (engine: FakeOpenAiServer) => engine.requests.filter((request) => request.path.endsWith('/chat/completions')).length;
    const asked = failing.map(chats);
    const response = await postJson(test, url, { model: 'glm-4.5-flash', messages: user });
    assert.equal(response.statusCode, 500, response.body);
    assert.match(response.body, /second engine broke/);
    assert.deepEqual(
      failing.map((engine, index) => chats(engine) - (asked[index] ?? 0)),
      [1, 1],
      'each deployment was tried once, in priority order',
    );
  });
});
