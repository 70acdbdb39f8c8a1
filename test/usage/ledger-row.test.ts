import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UsageRecord } from '../../src/core/usage/usage-record.ts';
import { packLedgerRecords, toLedgerRows, unpackLedgerRows } from '../../src/store/usage/ledger-row.ts';

const createdAt = Date.UTC(2026, 10, 22, 23, 59, 59, 999);

const tokensOnly: UsageRecord = {
  keyId: 'key-a',
  model: 'glm-4.7',
  endpoint: 'chat.completions',
  requestId: 'req-1',
  promptTokens: 12,
  completionTokens: 7,
  cachedTokens: 3,
  createdAt,
};

const withUnits: UsageRecord = {
  keyId: 'key-b',
  model: 'glm-ocr',
  endpoint: 'layout_parsing',
  requestId: 'req-2',
  promptTokens: 0,
  completionTokens: 0,
  cachedTokens: 0,
  // Every unit a value of its own: a field read from another's place shows.
  units: { pages: 4, audioSeconds: 12.5, images: 2, videos: 3, searches: 1, urlsRead: 6 },
  cost: 1_250_000,
  createdAt: createdAt + 1,
};

describe('ledger rows', () => {
  it('carry every field of their record, absent units and cost as 0, through the packed form the writer thread receives', () => {
    const packed = packLedgerRecords([tokensOnly, withUnits]);
    // What crosses to the thread is strings and one typed array of numbers.
    assert.ok(packed.numbers instanceof Float64Array);
    assert.deepEqual(packed.requestIds, ['req-1', 'req-2']);
    const rows = unpackLedgerRows(structuredClone(packed));
    assert.equal(rows.length, 2);
    const [first, second] = rows.map(({ id, ...row }) => {
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      return row;
    });
    assert.deepEqual(first, {
      key_id: 'key-a',
      model: 'glm-4.7',
      endpoint: 'chat.completions',
      request_id: 'req-1',
      day: '2026-11-22',
      prompt_tokens: 12,
      completion_tokens: 7,
      cached_tokens: 3,
      pages: 0,
      audio_seconds: 0,
      images: 0,
      videos: 0,
      searches: 0,
      urls_read: 0,
      cost: 0,
      created_at: createdAt,
    });
    assert.deepEqual(second, {
      key_id: 'key-b',
      model: 'glm-ocr',
      endpoint: 'layout_parsing',
      request_id: 'req-2',
      day: '2026-11-23',
      prompt_tokens: 0,
      completion_tokens: 0,
      cached_tokens: 0,
      pages: 4,
      audio_seconds: 12.5,
      images: 2,
      videos: 3,
      searches: 1,
      urls_read: 6,
      cost: 1_250_000,
      created_at: createdAt + 1,
    });
    assert.deepEqual(
      toLedgerRows([tokensOnly]).map(({ id: _id, ...row }) => row),
      [first],
    );
  });

  it('send each key, model and endpoint of a batch once, and rebuild every row whole', () => {
    const again: UsageRecord = { ...tokensOnly, requestId: 'req-3', model: 'glm-4.6' };
    const batch = [tokensOnly, again, withUnits, tokensOnly];
    const packed = packLedgerRecords(batch);
    assert.deepEqual(packed.texts, ['key-a', 'glm-4.7', 'chat.completions', 'glm-4.6', 'key-b', 'glm-ocr', 'layout_parsing']);
    const rows = unpackLedgerRows(structuredClone(packed));
    assert.deepEqual(
      rows.map((row) => [row.key_id, row.model, row.endpoint, row.request_id]),
      batch.map((record) => [record.keyId, record.model, record.endpoint, record.requestId]),
    );
    assert.equal(new Set(rows.map((row) => row.id)).size, rows.length);
  });

  it('pass a field that is not text on as it is, for the database to refuse', () => {
    const broken = { ...tokensOnly, model: null as unknown as string };
    const [first, second] = unpackLedgerRows(structuredClone(packLedgerRecords([tokensOnly, broken])));
    assert.equal(first?.model, 'glm-4.7');
    assert.equal(second?.model, null);
  });

  it('pass a numeric field that is not a number on as NaN, for the database to refuse, without failing the packing', () => {
    const broken = { ...tokensOnly, cost: 5n as unknown as number, promptTokens: '12' as unknown as number };
    const [row] = unpackLedgerRows(structuredClone(packLedgerRecords([broken])));
    assert.ok(Number.isNaN(row?.cost));
    assert.ok(Number.isNaN(row?.prompt_tokens));
    assert.equal(row?.completion_tokens, 7);
  });
});
