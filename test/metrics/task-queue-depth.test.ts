import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { taskQueueDepth } from '../../src/tasks/task-queue-depth.ts';
import { databaseTargets } from '../helpers/test-databases.ts';
import { createTestDatabase, gatedHandler, testTaskService, waitFor } from '../tasks/task-test-kit.ts';

for (const target of databaseTargets) {
  describe(`task queue depth on ${target.name}`, () => {
    it('counts queued and running tasks by kind, and leaves finished ones out', async () => {
      const database = await createTestDatabase(target);
      const connection = await database.open();
      const handler = gatedHandler('image');
      const service = testTaskService({ database: connection, handlers: [handler], concurrency: 1 });
      const depth = taskQueueDepth(connection);
      const sorted = async () => (await depth()).map((row) => `${row.kind}/${row.state}=${row.count}`).sort();
      try {
        const submit = (kind: string, index: number) => service.submit({ kind, ownerKeyId: 'k', model: 'm', requestId: `${kind}-${index}`, request: {} });
        for (let index = 0; index < 3; index += 1) await submit('image', index);
        await submit('video', 0);
        assert.deepEqual(await sorted(), ['image/queued=3', 'video/queued=1']);
        // One worker slot: one image runs (held by the gate), two wait; no worker runs videos.
        service.start();
        await waitFor(sorted, (rows) => rows.join() === ['image/queued=2', 'image/running=1', 'video/queued=1'].join());
        handler.open();
        await waitFor(sorted, (rows) => rows.join() === 'video/queued=1');
      } finally {
        await service.close();
        await connection.close();
        await database.drop();
      }
    });
  });
}
