import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PriceTable } from '../../src/core/billing/price-table.ts';
import { Admission } from '../../src/core/limits/admission.ts';
import { InProcessLimiter } from '../../src/limits/in-process-limiter.ts';
import { reportSkippedPostgres } from '../helpers/test-databases.ts';
import { isRedisInstalled, startRedis, type RedisServer } from '../tasks/task-test-kit.ts';
import { creditNodes, waitFor } from './credit-test-kit.ts';
import { startGatedChatEngine, type GatedChatEngine } from './gated-chat-engine.ts';
import { startTwoNodes, type TwoNodes } from './two-node-kit.ts';

const redisInstalled = isRedisInstalled();
const user = [{ role: 'user', content: 'Hello' }];
/** Each call reserves 1000 + 20 (max_tokens) x 1 = 1020 and keeps 1000 + 5 (the gated engine's answer) = 1005. */
const price = { perCall: 1000, perCompletionToken: 1 };
const reserved = 1020;
const kept = 1005;

describe('credit across two nodes sharing one database and one Redis', { skip: redisInstalled ? false : 'redis-server is not installed' }, () => {
  let redis: RedisServer | undefined;
  let engine: GatedChatEngine;
  let fleet: TwoNodes;
  before(async () => {
    reportSkippedPostgres();
    redis = await startRedis();
    engine = await startGatedChatEngine();
    fleet = await startTwoNodes({
      redisUrl: redis?.url ?? '',
      config: {
        models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'fake/model' } },
        billing: { prices: { 'glm-4.7': price } },
      },
    });
  });
  after(async () => {
    engine.release();
    await fleet.close();
    await engine.close();
    await redis?.stop();
  });

  it('50 concurrent calls against a balance covering 10: exactly 10 served, the balance ends >= 0, the ledger spend is the balance consumed', async () => {
    const balance = 10 * reserved;
    const key = await fleet.createKey({ credit: { balance } });
    const keyId = key.split('.')[0] ?? '';
    // Streams: an admitted call keeps its reservation until the engine's gate opens, so all 50 meet the same balance.
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_unused, index) =>
        fetch(`${(fleet.nodes[index % 2] ?? fleet.nodes[0]).baseUrl}/paas/v4/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'glm-4.7', messages: user, max_tokens: 20, stream: true, stream_options: { include_usage: true } }),
        }),
      ),
    );
    const served = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status !== 200);
    assert.equal(served.length, 10, 'exactly the calls whose reservation fitted');
    for (const response of refused) assert.equal(((await response.json()) as { error: { code: string } }).error.code, '1113');
    assert.equal(engine.received(), 10, 'only the served calls reached the engine');
    engine.release();
    await Promise.all(served.map((response) => response.text()));
    const platform = fleet.nodes[0].platform;
    await waitFor(
      async () => (await platform.keyAdmin.get(keyId))?.creditHeld,
      (held) => held === 0,
      'every reservation settled',
    );
    const left = (await platform.credits.balance(keyId)) ?? Number.NaN;
    assert.equal(left, balance - 10 * kept);
    assert.ok(left >= 0);
    await Promise.all(fleet.nodes.map((node) => node.platform.usage.flush()));
    const ledger = await platform.ledger.listForKey(keyId);
    assert.equal(ledger.length, 10);
    assert.equal(
      ledger.reduce((total, record) => total + (record.cost ?? 0), 0),
      balance - left,
    );
  });
});

for (const nodes of creditNodes([])) {
  describe(`a dead node's reservations (${nodes.name})`, () => {
    before(() => nodes.open());
    after(() => nodes.close());

    it('are renewed while the node lives, and released by another node once its lease has passed', async () => {
      const leaseMs = 300;
      const keyId = (await nodes.first().keyAdmin.create({ policy: { credit: { balance: 5000 } } })).key.split('.')[0] ?? '';
      const policy = { credit: { prices: { 'glm-4.7': { perCall: 2000 } } } };
      // The node that will die: its own admission, with a short lease, over the shared database.
      const doomed = new Admission({
        limiter: new InProcessLimiter(),
        credits: nodes.first().credits,
        prices: new PriceTable(undefined),
        policyOf: async () => policy,
        tokensSince: async () => 0,
        slotLeaseMs: leaseMs,
        log: () => undefined,
      });
      const bound = () => ({ promptTokens: 0, completionTokens: 0, cachedTokens: 0 });
      await doomed.admitCall({ id: keyId, policy }, 'glm-4.7', bound, false);
      await doomed.admitCall({ id: keyId, policy }, 'glm-4.7', bound, false);
      assert.equal(await nodes.second().credits.balance(keyId), 1000, 'two calls reserved');
      // Three leases later the living node has renewed them: nothing is released.
      await new Promise((resolve) => setTimeout(resolve, 3 * leaseMs));
      assert.deepEqual(await nodes.second().credits.reconcile(Date.now()), { released: 0 });
      // The node dies: no renewal, no settlement.
      await doomed.close();
      assert.deepEqual(await nodes.second().credits.reconcile(Date.now()), { released: 0 }, 'not before the lease has passed');
      await new Promise((resolve) => setTimeout(resolve, leaseMs + 50));
      const released = await Promise.all([nodes.first().credits.reconcile(Date.now()), nodes.second().credits.reconcile(Date.now())]);
      assert.equal(released[0].released + released[1].released, 2, 'each released once');
      assert.equal(await nodes.first().credits.balance(keyId), 5000);
    });
  });
}
