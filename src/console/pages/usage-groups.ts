import { sumSpend } from '../api/spend.ts';
import type { UsageRow } from '../api/usage-types.ts';

export type UsageGrouping = 'day' | 'key' | 'model' | 'endpoint';

export interface UsageGroup {
  readonly name: string;
  readonly calls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly spend: string;
}

const nameOf: Readonly<Record<UsageGrouping, (row: UsageRow) => string>> = {
  day: (row) => row.date,
  key: (row) => row.key_id,
  model: (row) => row.model,
  endpoint: (row) => row.endpoint ?? '(not reported)',
};

/** The usage rows summed by one grouping, in its order (days ascending, others by name). */
export function usageGroups(rows: readonly UsageRow[], by: UsageGrouping): UsageGroup[] {
  const groups = new Map<string, UsageRow[]>();
  for (const row of rows) {
    const name = nameOf[by](row);
    groups.set(name, [...(groups.get(name) ?? []), row]);
  }
  return [...groups.entries()]
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([name, members]) => ({
      name,
      calls: members.reduce((total, row) => total + row.calls, 0),
      promptTokens: members.reduce((total, row) => total + row.prompt_tokens, 0),
      completionTokens: members.reduce((total, row) => total + row.completion_tokens, 0),
      totalTokens: members.reduce((total, row) => total + row.total_tokens, 0),
      spend: sumSpend(members),
    }));
}
