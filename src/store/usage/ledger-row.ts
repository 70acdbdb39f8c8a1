import type { UsageRecord, UsageUnits } from '../../core/usage/usage-record.ts';
import type { UsageRecordTable } from '../database-schema.ts';
import { utcDay } from './usage-day.ts';
import { timeOrderedId } from './time-ordered-id.ts';

/** A usage record as the ledger's row: its id (time-ordered), its UTC day and every unit (absent is 0). */
export function toLedgerRow(record: UsageRecord): UsageRecordTable {
  const units = unitFields(record.units ?? {});
  return {
    id: timeOrderedId(record.createdAt),
    key_id: record.keyId,
    model: record.model,
    endpoint: record.endpoint,
    request_id: record.requestId,
    day: utcDay(record.createdAt),
    prompt_tokens: record.promptTokens,
    completion_tokens: record.completionTokens,
    cached_tokens: record.cachedTokens,
    pages: units.pages,
    audio_seconds: units.audioSeconds,
    images: units.images,
    videos: units.videos,
    searches: units.searches,
    urls_read: units.urlsRead,
    cost: record.cost ?? 0,
    created_at: record.createdAt,
  };
}

/**
 * The record's ledger fields and nothing else, to cross to the writer thread: whatever else a
 * record object carried (a function, a class instance) would fail the copy between threads, and
 * the recorder would retry that batch, and hold up every later one, for good.
 */
export function ledgerFields(record: UsageRecord): UsageRecord {
  const units = record.units;
  return {
    keyId: record.keyId,
    model: record.model,
    endpoint: record.endpoint,
    requestId: record.requestId,
    promptTokens: record.promptTokens,
    completionTokens: record.completionTokens,
    cachedTokens: record.cachedTokens,
    ...(units === undefined ? {} : { units: unitFields(units) }),
    ...(record.cost === undefined ? {} : { cost: record.cost }),
    createdAt: record.createdAt,
  };
}

/** Absent units as 0, as the ledger keeps them. */
function unitFields(units: UsageUnits): Required<UsageUnits> {
  return {
    pages: units.pages ?? 0,
    audioSeconds: units.audioSeconds ?? 0,
    images: units.images ?? 0,
    videos: units.videos ?? 0,
    searches: units.searches ?? 0,
    urlsRead: units.urlsRead ?? 0,
  };
}
