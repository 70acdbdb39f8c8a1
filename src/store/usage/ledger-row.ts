import type { UsageRecord } from '../../core/usage/usage-record.ts';
import type { UsageRecordTable } from '../database-schema.ts';
import { utcDay } from './usage-day.ts';
import { timeOrderedId } from './time-ordered-id.ts';

/**
 * A batch of usage records as flat lists (packLedgerRecords): `texts`, each key, model and endpoint
 * of the batch once; `requestIds`, one a record; and `numbers`, record after record, the ledger's
 * numeric fields with the key, model and endpoint as their places in `texts`.
 */
export interface PackedLedgerRecords {
  readonly texts: unknown[];
  readonly requestIds: unknown[];
  readonly numbers: Float64Array<ArrayBuffer>;
}

/** How many numbers one record takes in a packed batch. */
const packedWidth = 14;

/**
 * A batch's ledger fields as flat lists, to cross to the writer thread: whatever else a record
 * object carried (a function, a class instance) would fail the copy between threads, and the
 * recorder would retry that batch, and hold up every later one, for good. Lists rather than an
 * object per record: the copy carries no property names, which the receiving thread would
 * otherwise make anew for every record; a batch's keys, models and endpoints (a few, repeated in
 * every record) each once; and the numbers in one typed array, whose buffer the thread is handed
 * whole (a list of mixed values is copied value by value, each tagged with its type: about twenty
 * times the CPU a record). Absent units and cost are 0, as the ledger keeps them. Texts are passed
 * on as they are, whatever they hold, and a numeric field that is not a number as NaN: the
 * database judges them (it refuses a NaN, which it stores as NULL, in its NOT NULL columns).
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
  const requestIds = new Array<unknown>(records.length);
  const numbers = new Float64Array(records.length * packedWidth);
  let at = 0;
  for (const [index, record] of records.entries()) {
    const units = record.units;
    requestIds[index] = record.requestId;
    numbers[at] = place(record.keyId);
    numbers[at + 1] = place(record.model);
    numbers[at + 2] = place(record.endpoint);
    numbers[at + 3] = numeric(record.promptTokens);
    numbers[at + 4] = numeric(record.completionTokens);
    numbers[at + 5] = numeric(record.cachedTokens);
    numbers[at + 6] = numeric(units?.pages ?? 0);
    numbers[at + 7] = numeric(units?.audioSeconds ?? 0);
    numbers[at + 8] = numeric(units?.images ?? 0);
    numbers[at + 9] = numeric(units?.videos ?? 0);
    numbers[at + 10] = numeric(units?.searches ?? 0);
    numbers[at + 11] = numeric(units?.urlsRead ?? 0);
    numbers[at + 12] = numeric(record.cost ?? 0);
    numbers[at + 13] = numeric(record.createdAt);
    at += packedWidth;
  }
  return { texts, requestIds, numbers };
}

/** A number as it is; anything else (a BigInt would make the typed array throw) NaN. */
function numeric(value: unknown): number {
  return typeof value === 'number' ? value : Number.NaN;
}

/** The ledger rows of a packed batch: each with its id (time-ordered) and its UTC day. */
export function unpackLedgerRows({ texts, requestIds, numbers }: PackedLedgerRecords): UsageRecordTable[] {
  const rows: UsageRecordTable[] = [];
  for (let index = 0, at = 0; at + packedWidth <= numbers.length; index += 1, at += packedWidth) {
    const createdAt = numbers[at + 13] as number;
    rows.push({
      id: timeOrderedId(createdAt),
      key_id: texts[numbers[at] as number] as string,
      model: texts[numbers[at + 1] as number] as string,
      endpoint: texts[numbers[at + 2] as number] as string,
      request_id: requestIds[index] as string,
      day: utcDay(createdAt),
      prompt_tokens: numbers[at + 3] as number,
      completion_tokens: numbers[at + 4] as number,
      cached_tokens: numbers[at + 5] as number,
      pages: numbers[at + 6] as number,
      audio_seconds: numbers[at + 7] as number,
      images: numbers[at + 8] as number,
      videos: numbers[at + 9] as number,
      searches: numbers[at + 10] as number,
      urls_read: numbers[at + 11] as number,
      cost: numbers[at + 12] as number,
      created_at: createdAt,
    });
  }
  return rows;
}

/** Usage records as the ledger's rows. */
export function toLedgerRows(records: readonly UsageRecord[]): UsageRecordTable[] {
  return unpackLedgerRows(packLedgerRecords(records));
}
