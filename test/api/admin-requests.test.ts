import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RequestCountRecorder } from '../../src/core/metrics/request-counts.ts';
import { RequestCountRepository } from '../../src/store/request-count-repository.ts';
import { databaseTargets, reportSkippedPostgres } from '../helpers/test-databases.ts';
import { postJson, startTestPlatform } from '../helpers/test-platform.ts';

reportSkippedPostgres();

const day = 86_400_000;

for (const target of databaseTargets) {
  describe(`GET /admin/requests on ${target.name}`, () => {
    it("answers this node's last hour and day, and every node's last 30 days from the hourly counts", async () => {
      const url = await target.create();
      // The model's engine does not listen: a call to it fails (5xx); a call without messages is refused (4xx).
      const test = await startTestPlatform({
        ...(url === undefined ? {} : { databaseUrl: url }),
        config: { models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1', upstreamModel: 'glm' } } },
      });
      // Another node of the fleet: its own recorder adding to the same database.
      const otherNode = new RequestCountRecorder(new RequestCountRepository(test.platform.database));
      try {
        const admin = `Bearer ${(await test.platform.keyAdmin.create({ name: 'ops', policy: { scope: 'admin' } })).key}`;
        const refused = await postJson(test, '/paas/v4/chat/completions', { model: 'glm-4.7', messages: [] });
        assert.equal(refused.statusCode, 400, refused.body);
        const failed = await postJson(test, '/paas/v4/chat/completions', { model: 'glm-4.7', messages: [{ role: 'user', content: 'hi' }] });
        assert.ok(failed.statusCode >= 500, failed.body);
        otherNode.record('glm-4.7', 200);
        otherNode.record('glm-4.7', 200);
        otherNode.record('glm-4.7', 503);
        otherNode.record('cogview-4', 200);
        // Older than the 30 UTC days: not counted.
        otherNode.record('glm-4.7', 200, Date.now() - 31 * day);
        // Both nodes add their counts at once, to the same hour and model.
        await Promise.all([test.platform.requestCounts.flush(), otherNode.flush()]);

        const answer = await test.app.inject({ method: 'GET', url: '/admin/requests', headers: { authorization: admin } });
        assert.equal(answer.statusCode, 200, answer.body);
        const body = answer.json() as {
          scope: string;
          last_day: { model: string; requests: number; errors: number; refused: number }[];
          last_30_days: { model: string; requests: number; errors: number; refused: number }[];
        };
        assert.equal(body.scope, 'node');
        assert.deepEqual(
          body.last_day.map(({ model, requests, errors, refused }) => ({ model, requests, errors, refused })),
          [{ model: 'glm-4.7', requests: 2, errors: 1, refused: 1 }],
          "this node's own calls",
        );
        assert.deepEqual(body.last_30_days, [
          { model: 'cogview-4', requests: 1, errors: 0, refused: 0 },
          { model: 'glm-4.7', requests: 5, errors: 2, refused: 1 },
        ]);

        const holder = await test.app.inject({ method: 'GET', url: '/admin/requests', headers: { authorization: test.authorization } });
        assert.equal(holder.statusCode, 434, 'admin keys only');
      } finally {
        await otherNode.close();
        await test.close();
        await target.drop(url);
      }
    });
  });
}
