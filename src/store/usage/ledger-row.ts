import type { UsageRecord } from '../../core/usage/usage-record.ts';
import type { UsageRecordTable } from '../database-schema.ts';
import { utcDay } from './usage-day.ts';
import { timeOrderedId } from './time-ordered-id.ts';

/**
 * A batch of usage records as two flat lists (packLedgerRecords): `texts`, each key, model and
 * endpoint of the batch once, and `values`, record after record, the ledger fields with those
 * three as their places in `texts`.
 */
export interface PackedLedgerRecords {
  readonly texts: unknown[];
  readonly values: (string | number)[];
}

/** How many values one record takes in a packed batch. */
const packedWidth = 15;

/**
 * A batch's ledger fields as flat lists of strings and numbers (absent units and cost as 0, as the
 * ledger keeps them), to cross to the writer thread: whatever else a record object carried (a
 * function, a class instance) would fail the copy between threads, and the recorder would retry
 * that batch, and hold up every later one, for good. Lists rather than an object per record: the
 * copy carries no property names, which the receiving thread would otherwise make anew for every
 * record; and a batch's keys, models and endpoints (a few, repeated in every record) each once.
 * The fields are passed on as they are, whatever they hold: the database judges them.
 */
export function packLedgerRecords(records: readonly UsageRecord[]): PackedLedgerRecords {
  const texts: unknown[] = [];
  const placeOf = new Map<unknown, number>();
  const place = (text: unknown): number => {
    let found = placeOf.get(text);
    if (found === undefined) {
      found = texts.push(text) - 1;
      placeOf.set(text, found);
    }
    return found;
  };
  // Made at its final length: a list grown value by value is copied as it grows.
  const values = new Array<string | number>(records.length * packedWidth);
  let at = 0;
  for (const record of records) {
    const units = record.units;
    values[at] = place(record.keyId);
    values[at + 1] = place(record.model);
    values[at + 2] = place(record.endpoint);
    values[at + 3] = record.requestId;
    values[at + 4] = record.promptTokens;
    values[at + 5] = record.completionTokens;
    values[at + 6] = record.cachedTokens;
    values[at + 7] = units?.pages ?? 0;
    values[at + 8] = units?.audioSeconds ?? 0;
    values[at + 9] = units?.images ?? 0;
    values[at + 10] = units?.videos ?? 0;
    values[at + 11] = units?.searches ?? 0;
    values[at + 12] = units?.urlsRead ?? 0;
    values[at + 13] = record.cost ?? 0;
    values[at + 14] = record.createdAt;
    at += packedWidth;
  }
  return { texts, values };
}

/** The ledger rows of a packed batch: each with its id (time-ordered) and its UTC day. */
export function unpackLedgerRows({ texts, values }: PackedLedgerRecords): UsageRecordTable[] {
  const rows: UsageRecordTable[] = [];
  for (let at = 0; at + packedWidth <= values.length; at += packedWidth) {
    const createdAt = values[at + 14] as number;
    rows.push({
      id: timeOrderedId(createdAt),
      key_id: texts[values[at] as number] as string,
      model: texts[values[at + 1] as number] as string,
      endpoint: texts[values[at + 2] as number] as string,
      request_id: values[at + 3] as string,
      day: utcDay(createdAt),
      prompt_tokens: values[at + 4] as number,
      completion_tokens: values[at + 5] as number,
      cached_tokens: values[at + 6] as number,
      pages: values[at + 7] as number,
      audio_seconds: values[at + 8] as number,
      images: values[at + 9] as number,
      videos: values[at + 10] as number,
      searches: values[at + 11] as number,
      urls_read: values[at + 12] as number,
      cost: values[at + 13] as number,
      created_at: createdAt,
    });
  }
  return rows;
}

/** Usage records as the ledger's rows. */
export function toLedgerRows(records: readonly UsageRecord[]): UsageRecordTable[] {
  return unpackLedgerRows(packLedgerRecords(records));
}
