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
  // Rows of one group tend to come in runs (a busy key calling one model): a row of the last row's
  // group is added without making its group's key.
  let last: UsageDailyTable | undefined;
  for (const row of rows) {
    let sum = last !== undefined && sameGroup(last, row) ? last : undefined;
    if (sum === undefined) {
      const group = groupOf(row);
      sum = sums.get(group) ?? newSum(sums, group, row);
    }
    last = sum;
    sum.calls += 1;
    for (const column of summedColumns) sum[column] += row[column];
  }
  return [...sums.entries()].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)).map(([, sum]) => sum);
}

/** A group's sum at zero, added to `sums` under its key. */
function newSum(sums: Map<string, UsageDailyTable>, group: string, row: UsageRecordTable): UsageDailyTable {
  const sum: UsageDailyTable = {
    day: row.day,
    key_id: row.key_id,
    model: row.model,
    endpoint: row.endpoint,
    calls: 0,
    ...(Object.fromEntries(summedColumns.map((column) => [column, 0])) as Record<(typeof summedColumns)[number], number>),
  };
  sums.set(group, sum);
  return sum;
}

function groupOf(row: UsageRecordTable): string {
  return `${row.day}\u0000${row.key_id}\u0000${row.model}\u0000${row.endpoint}`;
}

function sameGroup(sum: UsageDailyTable, row: UsageRecordTable): boolean {
  return sum.day === row.day && sum.key_id === row.key_id && sum.model === row.model && sum.endpoint === row.endpoint;
}
