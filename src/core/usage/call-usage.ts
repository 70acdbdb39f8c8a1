import type { UsageRecord, UsageUnits } from './usage-record.ts';

/** A completed call as a route knows it; tokens it did not use may be left out. */
export interface CompletedCall {
  readonly keyId: string;
  readonly model: string;
  readonly endpoint: string;
  readonly requestId: string;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly cachedTokens?: number;
  readonly units?: UsageUnits;
}

/** The usage record of a call that completed now, tokens not given counted as 0. */
export function callUsage(call: CompletedCall, now: number = Date.now()): UsageRecord {
  return {
    keyId: call.keyId,
    model: call.model,
    endpoint: call.endpoint,
    requestId: call.requestId,
    promptTokens: call.promptTokens ?? 0,
    completionTokens: call.completionTokens ?? 0,
    cachedTokens: call.cachedTokens ?? 0,
    ...(call.units === undefined ? {} : { units: call.units }),
    createdAt: now,
  };
}
