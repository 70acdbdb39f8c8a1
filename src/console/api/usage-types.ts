/** One row of GET /admin/usage: a key's calls and tokens with one model on one UTC day (plus spend where reported). */
export interface UsageRow {
  readonly key_id: string;
  readonly model: string;
  readonly date: string;
  readonly calls: number;
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  /** The API called, where the server reports usage by endpoint. */
  readonly endpoint?: string;
}

export function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

export const dayMs = 86_400_000;

/** GET /admin/usage: the rows, with the currency of their spend where the server prices usage. */
export interface UsageAnswer {
  readonly data: UsageRow[];
  readonly currency?: string;
}
