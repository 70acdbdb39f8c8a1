import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { timeOrderedId } from '../../src/store/usage/time-ordered-id.ts';

describe('time-ordered ledger ids', () => {
  it('are RFC 9562 version 7 UUIDs carrying their time, unique, and sort by creation time', () => {
    const start = Date.UTC(2026, 10, 22, 2, 30);
    const ids = Array.from({ length: 2000 }, (_, index) => timeOrderedId(start + Math.floor(index / 4)));
    for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(Number.parseInt((ids[0] ?? '').replace('-', '').slice(0, 12), 16), start);
    assert.equal(new Set(ids).size, ids.length);
    // Ids of later milliseconds sort after earlier ones (within one millisecond the order is random).
    const stamps = ids.map((id) => id.slice(0, 13));
    for (let index = 4; index < stamps.length; index += 4) assert.ok((stamps[index - 1] ?? '') < (stamps[index] ?? ''));
  });
});
