import type { QueueDepthReader } from '../core/metrics/platform-metrics.ts';
import type { Database } from '../store/database.ts';

/**
 * Open tasks by kind and queue state (`queued`, `running`), for the queue-depth metric. The rows
 * of the database are the queue's truth in both modes (embedded and BullMQ); the `in` filter uses
 * the state index, so finished rows, however many, are not read.
 */
export function taskQueueDepth(database: Database): QueueDepthReader {
  return async () => {
    const rows = await database.db
      .selectFrom('tasks')
      .select(['kind', 'state'])
      .select((builder) => builder.fn.countAll<number | string>().as('count'))
      .where('state', 'in', ['queued', 'running'])
      .groupBy(['kind', 'state'])
      .execute();
    return rows.map((row) => ({ kind: row.kind, state: row.state, count: Number(row.count) }));
  };
}
