/**
 * Work a call did that is not tokens, each counted per call (absent is 0): layout-parsed pages,
 * seconds of transcribed audio, generated images and videos, web searches and URLs read.
 */
export interface UsageUnits {
  readonly pages?: number;
  readonly audioSeconds?: number;
  readonly images?: number;
  readonly videos?: number;
  readonly searches?: number;
  readonly urlsRead?: number;
}

/** One completed call, as the usage ledger keeps it. */
export interface UsageRecord {
  readonly keyId: string;
  readonly model: string;
  /** Which API was called, e.g. `chat.completions`. */
  readonly endpoint: string;
  readonly requestId: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens: number;
  /** Non-token work of the call; absent for calls measured in tokens only. */
  readonly units?: UsageUnits;
  /** What the call cost, integer micro-units, priced when recorded; absent: not priced (0). */
  readonly cost?: number;
  readonly createdAt: number;
}
