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
  readonly createdAt: number;
}
