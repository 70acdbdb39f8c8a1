import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { request as httpRequest } from 'undici';
import { ApiError } from '../../src/core/errors/api-error.ts';
import type { TaskHandler, TaskRecord } from '../../src/core/tasks/task.ts';
import type { Platform } from '../../src/platform/open-platform.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { jsonReply, sseReply, startFakeOpenAiServer, vllmChunk, vllmCompletion, vllmUsageChunk, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { startFakeOpenAiImagesServer, type FakeOpenAiImagesServer } from '../helpers/fake-openai-images-server.ts';
import { samplePng } from '../helpers/media-samples.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { creditNodes, waitFor } from './credit-test-kit.ts';

const user = [{ role: 'user', content: 'Hello' }];
const idOf = (key: string) => key.split('.')[0] ?? '';
/** What the fake engine's default answer uses. */
const usage = { promptTokens: 10, completionTokens: 5, cachedTokens: 0 };
/** The table's price of glm-4.7: 100 + 10 x 2 + 5 x 4.5 = 142.5 -> 143 micro-units a call. */
const tablePrice = { perCall: 100, perPromptToken: '2', perCompletionToken: 4.5 };
const tableCost = 143;

/** The spend the ledger holds for a key, once the recorder has written what it has. */
async function ledgerSpend(platform: Platform, keyId: string): Promise<number> {
  await platform.usage.flush();
  return (await platform.ledger.listForKey(keyId)).reduce((total, record) => total + (record.cost ?? 0), 0);
}

describe('prices and prepaid credit on sync calls', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  let origin = '';
  before(async () => {
    engine = await startFakeOpenAiServer();
    const entry = { backend: 'openai-compatible' as const, baseUrl: engine.baseUrl };
    test = await startTestPlatform({
      config: { models: { 'glm-4.7': entry, 'glm-4.6': entry }, billing: { currency: 'EUR', prices: { 'glm-4.7': tablePrice } } },
    });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    engine.reset();
    engine.setDefault(jsonReply(vllmCompletion({ content: 'ok', usage })));
  });
  after(async () => {
    await test.close();
    await engine.close();
  });

  const createKey = async (credit: { balance: number; prices?: Record<string, object> }) => (await test.platform.keyAdmin.create({ policy: { credit } })).key;
  const call = (key: string, body: Record<string, unknown> = {}) =>
    postJson({ ...test, authorization: `Bearer ${key}` }, '/paas/v4/chat/completions', { model: 'glm-4.7', messages: user, max_tokens: 20, ...body });
  const balance = async (key: string) => (await test.platform.credits.balance(idOf(key))) ?? Number.NaN;
  /** Waits until nothing is reserved for the key, then checks the ledger's spend is the balance consumed. */
  const settled = async (key: string, start: number): Promise<number> => {
    await waitFor(
      async () => (await test.platform.keyAdmin.get(idOf(key)))?.creditHeld,
      (held) => held === 0,
      'reservations settled',
    );
    const consumed = start - (await balance(key));
    assert.equal(await ledgerSpend(test.platform, idOf(key)), consumed, "the ledger's spend is the balance consumed");
    return consumed;
  };

  it("charges a completed call at the config's price table, and the ledger row carries it", async () => {
    const key = await createKey({ balance: 10_000 });
    assert.equal((await call(key)).statusCode, 200);
    assert.equal(await settled(key, 10_000), tableCost);
  });

  it("a key's own price replaces the table's entry", async () => {
    const key = await createKey({ balance: 10_000, prices: { 'glm-4.7': { perCall: 7, perCompletionToken: '0.5' } } });
    assert.equal((await call(key)).statusCode, 200);
    assert.equal(await settled(key, 10_000), 10, '7 + 5 x 0.5 = 9.5 -> 10');
  });

  it('refuses a credit key a model nothing prices, naming the model and the setting; a key without credit calls it', async () => {
    const key = await createKey({ balance: 10_000 });
    const refused = await call(key, { model: 'glm-4.6' });
    assertPlatformError(refused, { status: 429, code: '1113', mentions: ["'glm-4.6'", 'billing.prices.glm-4.6', 'credit.prices.glm-4.6'] });
    assert.equal(engine.requests.length, 0, 'the engine never saw it');
    assert.equal(await balance(key), 10_000);
    assert.equal((await postJson(test, '/paas/v4/chat/completions', { model: 'glm-4.6', messages: user })).statusCode, 200);
  });

  it('reserves the most a call can cost before the engine runs: refused with 1113 when it does not fit', async () => {
    const key = await createKey({ balance: 1000 });
    // 100 + body bytes x 2 + 1000 x 4.5: far above 1000.
    assertPlatformError(await call(key, { max_tokens: 1000 }), { status: 429, code: '1113', mentions: ['max_tokens'] });
    assert.equal(engine.requests.length, 0);
    assert.equal((await call(key, { max_tokens: 20 })).statusCode, 200, 'a smaller max_tokens fits');
    assert.equal(await settled(key, 1000), tableCost, 'and only the real cost is kept');
  });

  it('settles a streamed call to its real cost', async () => {
    engine.enqueue(sseReply([vllmChunk({ role: 'assistant', content: 'Hi' }), vllmChunk({}, 'stop'), vllmUsageChunk(usage)]));
    const key = await createKey({ balance: 10_000 });
    const response = await call(key, { stream: true, stream_options: { include_usage: true } });
    assert.equal(response.statusCode, 200);
    assert.equal(await settled(key, 10_000), tableCost);
  });

  it('settles a stream the client cut to what was recorded of it, and releases the rest', async () => {
    engine.enqueue(
      sseReply([vllmChunk({ role: 'assistant', content: 'Hi' }), ...Array.from({ length: 50 }, () => vllmChunk({ content: ' more' }))], { delayMs: 50 }),
    );
    const key = await createKey({ balance: 10_000 });
    const controller = new AbortController();
    const response = await httpRequest(`${origin}/paas/v4/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'glm-4.7', messages: user, max_tokens: 100, stream: true }),
      signal: controller.signal,
    });
    assert.equal(response.statusCode, 200);
    const reader = response.body[Symbol.asyncIterator]();
    await reader.next();
    controller.abort();
    await assert.rejects(reader.next());
    await engine.waitForClientClose(0, 10_000);
    const consumed = await settled(key, 10_000);
    // The usage of a cut stream is recorded after the client left: the settlement waits for it.
    assert.ok(consumed > 100, `perCall and the tokens produced are kept (${consumed})`);
    assert.ok(consumed < 100 + 100 * 4.5, `far less than the reservation is kept (${consumed})`);
  });

  it('releases the whole reservation of a call whose engine failed', async () => {
    engine.enqueue(jsonReply({ error: { message: 'boom' } }, 500));
    const key = await createKey({ balance: 10_000 });
    assert.ok((await call(key)).statusCode >= 500);
    assert.equal(await settled(key, 10_000), 0);
  });

  it('never overdraws: calls one after another stop once the balance does not cover a reservation', async () => {
    // Each call reserves 100 + body x 2 + 20 x 4.5 (about 350) and keeps 143.
    const key = await createKey({ balance: 1000 });
    const codes: number[] = [];
    for (let index = 0; index < 10; index += 1) codes.push((await call(key)).statusCode);
    const served = codes.filter((code) => code === 200).length;
    const consumed = await settled(key, 1000);
    assert.equal(consumed, served * tableCost);
    assert.ok((await balance(key)) >= 0, 'the balance never goes below zero');
    assert.ok(1000 - consumed < 400, 'calls were served while a reservation fitted');
  });

  it('shows spend by day, key, model and endpoint in /admin/usage, a non-admin key its own rows only', async () => {
    const key = await createKey({ balance: 10_000 });
    assert.equal((await call(key)).statusCode, 200);
    await settled(key, 10_000);
    const own = await test.app.inject({ method: 'GET', url: '/admin/usage', headers: { authorization: `Bearer ${key}` } });
    assert.equal(own.statusCode, 200);
    const report = own.json<{
      currency: string;
      data: { key_id: string; endpoint: string; spend_micros: number; spend: string }[];
      total: { spend_micros: number; spend: string };
    }>();
    assert.equal(report.currency, 'EUR');
    assert.deepEqual(
      report.data.map((row) => [row.key_id, row.endpoint, row.spend_micros, row.spend]),
      [[idOf(key), 'chat.completions', tableCost, '0.000143']],
    );
    assert.deepEqual(report.total, { ...report.total, spend_micros: tableCost, spend: '0.000143' });
    const other = await test.app.inject({ method: 'GET', url: `/admin/usage?key_id=${idOf(test.key)}`, headers: { authorization: `Bearer ${key}` } });
    assertPlatformError(other, { status: 403, code: '403', mentions: ['own usage'] });
  });

  it('tops up through the admin API by adding to the balance', async () => {
    const key = await createKey({ balance: 10 });
    const admin = (await test.platform.keyAdmin.create({ policy: { scope: 'admin' } })).key;
    const response = await test.app.inject({
      method: 'POST',
      url: `/admin/keys/${idOf(key)}/top-up`,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      payload: { amount_micros: 5_000_000 },
    });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json<{ policy: { credit: { balance: number } } }>().policy.credit.balance, 5_000_010);
  });
});

describe('prepaid credit on sync image calls', () => {
  let engine: FakeOpenAiImagesServer;
  let test: TestPlatform;
  before(async () => {
    engine = await startFakeOpenAiImagesServer();
    test = await startTestPlatform({
      config: {
        models: { 'my-painter': { backend: 'openai-images', baseUrl: engine.baseUrl, upstreamModel: 'dall-e-3' } },
        billing: { prices: { 'my-painter': { perCall: 10, perImage: 40_000 } } },
      },
    });
  });
  after(async () => {
    await test.close();
    await engine.close();
  });

  it('reserves one image, keeps perCall + perImage for a generated one, and nothing for a refused one', async () => {
    const { key } = await test.platform.keyAdmin.create({ policy: { credit: { balance: 100_000 } } });
    const keyId = idOf(key);
    const generate = () => postJson({ ...test, authorization: `Bearer ${key}` }, '/paas/v4/images/generations', { model: 'my-painter', prompt: 'a cat' });
    engine.reply({ kind: 'b64', images: [await samplePng(8, 8)] });
    assert.equal((await generate()).statusCode, 200);
    engine.reply({ kind: 'error', status: 500, message: 'the GPU fell over' });
    assert.ok((await generate()).statusCode >= 500);
    await waitFor(
      async () => (await test.platform.keyAdmin.get(keyId))?.creditHeld,
      (held) => held === 0,
      'settled',
    );
    assert.equal(await test.platform.credits.balance(keyId), 100_000 - 40_010);
    assert.equal(await ledgerSpend(test.platform, keyId), 40_010);
  });
});

/** Tasks whose request says how they end: an image task makes one image. */
const handlers: TaskHandler[] = ['image', 'video'].map((kind) => ({
  kind,
  async run(task: TaskRecord) {
    if ((task.request as { behaviour?: string }).behaviour === 'fail') throw new ApiError('1301', 'The prompt was refused.');
    return kind === 'image' ? { images: [{ url: 'x' }] } : { videos: [{ url: 'x' }] };
  },
}));

for (const nodes of creditNodes(handlers)) {
  describe(`credit reserved by async work (${nodes.name})`, () => {
    let key = '';
    before(async () => {
      await nodes.open();
      const prices = { 'glm-image': { perCall: 10, perImage: 90 }, 'cogvideox-3': { perVideo: 600 } };
      key = (await nodes.first().keyAdmin.create({ policy: { credit: { balance: 1000, prices } } })).key;
    });
    after(() => nodes.close());
    const submit = (node: Platform, kind: 'image' | 'video', behaviour: string) =>
      node.tasks.submit({
        kind,
        ownerKeyId: idOf(key),
        model: kind === 'image' ? 'glm-image' : 'cogvideox-3',
        requestId: `credit-${behaviour}`,
        request: { behaviour },
      });
    const balance = async () => nodes.first().credits.balance(idOf(key));
    const settledTo = (expected: number) =>
      waitFor(
        async () => [await balance(), (await nodes.first().keyAdmin.get(idOf(key)))?.creditHeld],
        ([now, held]) => now === expected && held === 0,
        `balance ${expected}`,
      );

    it('reserves at submit and settles to the real cost when the task succeeds, once across nodes', async () => {
      const task = await submit(nodes.second(), 'image', 'succeed');
      assert.equal(await balance(), 900, 'perCall 10 + perImage 90 reserved at once');
      await settledTo(900);
      await Promise.all([nodes.first().credits.reconcile(Date.now()), nodes.second().credits.reconcile(Date.now())]);
      assert.equal(await balance(), 900, 'a sweep does not settle it again');
      assert.equal(await ledgerSpend(nodes.first(), idOf(key)), 100);
      assert.equal((await nodes.first().tasks.get(task.id, idOf(key)))?.status, 'SUCCESS');
    });

    it('releases the reservation when the task fails', async () => {
      await submit(nodes.first(), 'image', 'fail');
      await settledTo(900);
      assert.equal(await ledgerSpend(nodes.first(), idOf(key)), 100, 'a failed task records nothing');
    });

    it('refuses work the balance cannot cover with 1113, and submits nothing', async () => {
      await submit(nodes.second(), 'video', 'succeed');
      await assert.rejects(submit(nodes.first(), 'video', 'succeed'), (error: unknown) => error instanceof ApiError && error.code === '1113');
      await settledTo(300);
      assert.equal(await ledgerSpend(nodes.first(), idOf(key)), 700);
    });
  });
}
