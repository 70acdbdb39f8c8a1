import type { UsageDailyTable, UsageRecordTable } from '../database-schema.ts';

/** The summed columns of a ledger row, in the order of the daily rollup. */
export const summedColumns = [
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'pages',
  'audio_seconds',
  'images',
  'videos',
  'searches',
  'urls_read',
  'cost',
] as const satisfies readonly (keyof UsageRecordTable & keyof UsageDailyTable)[];

/**
 * A batch's sums for the daily rollups, one per day, key, model and endpoint, in key order, so two
 * writers adding batches at once lock the rollup rows in the same order.
 */
export function rollupSums(rows: readonly UsageRecordTable[]): UsageDailyTable[] {
  const sums = new Map<string, UsageDailyTable>();
  for (const row of rows) {
    const group = `${row.day}\u0000${row.key_id}\u0000${row.model}\u0000${row.endpoint}`;
    let sum = sums.get(group);
    if (sum === undefined) {
      sum = {
        day: row.day,
        key_id: row.key_id,
        model: row.model,
        endpoint: row.endpoint,
        calls: 0,
        ...(Object.fromEntries(summedColumns.map((column) => [column, 0])) as Record<(typeof summedColumns)[number], number>),
      };
      sums.set(group, sum);
    }
    sum.calls += 1;
    for (const column of summedColumns) sum[column] += row[column];
  }
  return [...sums.entries()].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)).map(([, sum]) => sum);
}
