import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { reportSkippedPostgres } from '../helpers/test-databases.ts';
import { isRedisInstalled, startRedis, type RedisServer } from '../tasks/task-test-kit.ts';
import { startGatedChatEngine, type GatedChatEngine } from './gated-chat-engine.ts';
import { startTwoNodes, type TwoNodes } from './two-node-kit.ts';

const redisInstalled = isRedisInstalled();
const user = [{ role: 'user', content: 'Hello' }];

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly code: string | undefined;
  readonly message: string;
}

describe('key limits across two nodes sharing one database and one Redis', { skip: redisInstalled ? false : 'redis-server is not installed' }, () => {
  let redis: RedisServer | undefined;
  let engine: GatedChatEngine;
  let fleet: TwoNodes;
  before(async () => {
    reportSkippedPostgres();
    redis = await startRedis();
    engine = await startGatedChatEngine();
    fleet = await startTwoNodes({
      redisUrl: redis?.url ?? '',
      config: { models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'fake/model' } } },
    });
  });
  after(async () => {
    engine.release();
    await fleet.close();
    await engine.close();
    await redis?.stop();
  });

  /** POST /chat/completions on node `index % 2`; a refused call's body is read, an admitted stream's is left open. */
  const chat = async (key: string, index: number, stream: boolean, signal?: AbortSignal) => {
    const node = fleet.nodes[index % 2] ?? fleet.nodes[0];
    const response = await fetch(`${node.baseUrl}/paas/v4/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'glm-4.7', messages: user, stream }),
      ...(signal === undefined ? {} : { signal }),
    });
    return response;
  };
  const answer = async (response: Response): Promise<Answer> => {
    const text = await response.text();
    const body = (text.startsWith('{') ? JSON.parse(text) : {}) as { error?: { code?: string; message?: string } };
    return { status: response.status, headers: response.headers, code: body.error?.code, message: body.error?.message ?? text };
  };
  const eventually = async (attempt: () => Promise<boolean>, what: string) => {
    const until = Date.now() + 30_000;
    while (!(await attempt())) {
      if (Date.now() > until) assert.fail(`${what} did not happen within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it(`runs on ${process.env['TEST_DATABASE_URL'] === undefined ? 'SQLite (TEST_DATABASE_URL unset)' : 'PostgreSQL'} with Redis counters`, () => {
    assert.equal(fleet.storage, process.env['TEST_DATABASE_URL'] === undefined ? 'sqlite' : 'postgres');
  });

  it('a concurrency limit of 2 holds exactly across both nodes under 20 parallel streamed requests', async () => {
    const key = await fleet.createKey({ concurrency: { perModel: 2 } });
    const before = engine.received();
    const responses = await Promise.all(Array.from({ length: 20 }, (_unused, index) => chat(key, index, true)));
    const admitted = responses.filter((response) => response.status === 200);
    const refused = await Promise.all(responses.filter((response) => response.status !== 200).map(answer));
    assert.equal(admitted.length, 2, `statuses: ${responses.map((response) => response.status).join(',')}`);
    assert.equal(engine.received() - before, 2, 'only the admitted calls reached the engine');
    assert.equal(refused.length, 18);
    for (const refusal of refused) {
      assert.equal(refusal.status, 429);
      assert.equal(refusal.code, '1302');
      assert.match(refusal.message, /at most 2 at a time/);
      assert.equal(refusal.headers.get('retry-after'), '1', 'a wait helps: Retry-After');
      assert.equal(refusal.headers.get('x-should-retry'), null, 'retryable: no x-should-retry: false');
    }

    // A stream holds its slot until it ends; once both end, the slots are free again.
    engine.release();
    for (const response of admitted) assert.match(await response.text(), /data: \[DONE\]\n\n$/);
    await eventually(async () => {
      const response = await chat(key, 1, false);
      return (await answer(response)).status === 200;
    }, 'a call after both streams ended');
  });

  it('a client that leaves frees its slot at once, on whichever node it was', async () => {
    const key = await fleet.createKey({ concurrency: { perModel: 1 } });
    const leaving = new AbortController();
    const held = await chat(key, 0, true, leaving.signal);
    assert.equal(held.status, 200);
    assert.equal((await answer(await chat(key, 1, true))).code, '1302', 'the slot is taken while the stream runs');
    const closedBefore = engine.closedEarly();
    leaving.abort();
    await eventually(async () => engine.closedEarly() > closedBefore, 'the engine call being aborted');
    await eventually(async () => {
      const response = await chat(key, 1, false);
      return (await answer(response)).status === 200;
    }, 'the slot being free');
  });

  it('a rate limit admits exactly its count per window, on any route, with Retry-After', async () => {
    // The window is the calendar minute: start well inside one.
    const secondsLeft = 60 - new Date().getSeconds();
    if (secondsLeft < 8) await new Promise((resolve) => setTimeout(resolve, secondsLeft * 1000 + 200));
    const key = await fleet.createKey({ requestsPerMinute: 5 });
    const answers: Answer[] = [];
    for (let index = 0; index < 8; index += 1) {
      const node = fleet.nodes[index % 2] ?? fleet.nodes[0];
      const path = index % 3 === 0 ? '/paas/v4/files' : '/paas/v4/async-result/no-such-task';
      answers.push(await answer(await fetch(`${node.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } })));
    }
    const limited = answers.filter((entry) => entry.code === '1303');
    assert.equal(answers.length - limited.length, 5, answers.map((entry) => entry.code ?? entry.status).join(','));
    assert.deepEqual(
      answers.slice(5).map((entry) => entry.code),
      ['1303', '1303', '1303'],
      'the first five pass, the rest are refused',
    );
    for (const refusal of limited) {
      assert.equal(refusal.status, 429);
      const wait = Number(refusal.headers.get('retry-after'));
      assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
      assert.match(refusal.message, /5 requests per minute/);
    }
  });

  it('a daily calls quota stops at its number, not one call late, with the reset time and x-should-retry: false', async () => {
    const key = await fleet.createKey({ quota: { period: 'day', calls: 3 } });
    const answers: Answer[] = [];
    for (let index = 0; index < 5; index += 1) answers.push(await answer(await chat(key, index, false)));
    assert.deepEqual(
      answers.map((entry) => entry.status),
      [200, 200, 200, 429, 429],
    );
    const refusal = answers[3];
    assert.equal(refusal?.code, '1304');
    const tomorrow = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1)).toISOString();
    assert.match(refusal?.message ?? '', new RegExp(`3 calls.*reset at ${tomorrow.replace(/[.]/g, '\\.')}`));
    assert.equal(refusal?.headers.get('x-should-retry'), 'false');
    assert.equal(refusal?.headers.get('retry-after'), null, 'a wait of hours does not help a client');
  });

  it('a monthly token cap lets the call that crosses it complete and refuses the next one (1308)', async () => {
    // 15 tokens a call: 15 < 20 admits the second call, which ends at 30; the third sees 30 >= 20.
    const key = await fleet.createKey({ quota: { period: 'month', tokens: 20 } });
    const answers: Answer[] = [];
    answers.push(await answer(await chat(key, 0, false)));
    // The crossing call is a stream on the other node: its tokens count once it ends.
    const streamed = await chat(key, 1, true);
    engine.release();
    answers.push(await answer(streamed));
    answers.push(await answer(await chat(key, 2, false)));
    assert.deepEqual(
      answers.map((entry) => entry.status),
      [200, 200, 429],
    );
    assert.equal(answers[2]?.code, '1308');
    const now = new Date();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    assert.ok(answers[2]?.message.includes(`20 tokens per month, reset at ${nextMonth}`), answers[2]?.message);
    assert.equal(answers[2]?.headers.get('x-should-retry'), 'false');
  });

  it('a policy change made on one node applies on the other within the auth cache time', async () => {
    const key = await fleet.createKey({});
    const id = key.split('.')[0] ?? '';
    assert.equal((await answer(await chat(key, 1, false))).status, 200);
    await fleet.nodes[0].platform.keyAdmin.updatePolicy(id, { models: ['glm-4.6'] });
    await eventually(async () => (await answer(await chat(key, 1, false))).code === '1220', 'the new policy on the other node');
  });
});
