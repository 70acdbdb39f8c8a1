// What the usage report asks of the usage ledger and what it answers: the CLI's `usage report`,
// the admin API and the ledger's repository share these.

/** What a report row is grouped by; any combination, in this order. */
export const usageGroupings = ['day', 'key', 'model', 'endpoint'] as const;
export type UsageGrouping = (typeof usageGroupings)[number];

export interface UsageReportQuery {
  /** First UTC day, `YYYY-MM-DD`, inclusive. */
  readonly from: string;
  /** Last UTC day, inclusive. */
  readonly to: string;
  readonly by: readonly UsageGrouping[];
  /** Only this key's rows. */
  readonly keyId?: string | undefined;
  /** Only this model's rows. */
  readonly model?: string | undefined;
}

/** Sums over a group; the grouping fields are set only when grouped by. */
export interface UsageReportRow {
  readonly day?: string;
  readonly keyId?: string;
  /** The key's name, when it has one. */
  readonly keyName?: string | undefined;
  readonly model?: string;
  readonly endpoint?: string;
  readonly calls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens: number;
  readonly pages: number;
  readonly audioSeconds: number;
  readonly images: number;
  readonly videos: number;
  readonly searches: number;
  readonly urlsRead: number;
  /** What the calls cost, integer micro-units (exact below 2^53). */
  readonly cost: number;
}
