/** One row of GET /admin/usage: a key's calls, tokens and spend with one model on one UTC day. */
export interface UsageRow {
  readonly key_id: string;
  readonly model: string;
  readonly date: string;
  readonly calls: number;
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  /** What the calls cost, a decimal of the answer's currency (6 places). */
  readonly spend: string;
  /** The API called, where the server reports usage by endpoint. */
  readonly endpoint?: string;
}

export function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

export const dayMs = 86_400_000;

/** GET /admin/usage: the rows, with the currency of their spend. */
export interface UsageAnswer {
  readonly data: UsageRow[];
  readonly currency: string;
}
