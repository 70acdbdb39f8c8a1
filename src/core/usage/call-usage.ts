import type { UsageRecord, UsageUnits } from './usage-record.ts';

/** Who made a call and through which API: the request's part of its usage record. */
export interface CallSite {
  readonly keyId: string;
  readonly endpoint: string;
  readonly requestId: string;
}

/** What a completed call used, as its handler measured it; tokens it did not use may be left out. */
export interface CallUsage {
  readonly model: string;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly cachedTokens?: number;
  readonly units?: UsageUnits;
}

/**
 * The usage record of a call that completed now, tokens not given counted as 0. Built field by
 * field, not as a spread copy given more fields: Node 20 builds such a copy slowly (~1 µs against
 * ~60 ns on Node 24), and this runs on every call.
 */
export function callUsage(site: CallSite, used: CallUsage, now: number = Date.now()): UsageRecord {
  return {
    keyId: site.keyId,
    model: used.model,
    endpoint: site.endpoint,
    requestId: site.requestId,
    promptTokens: used.promptTokens ?? 0,
    completionTokens: used.completionTokens ?? 0,
    cachedTokens: used.cachedTokens ?? 0,
    ...(used.units === undefined ? {} : { units: used.units }),
    createdAt: now,
  };
}
