import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { slotCounter, windowCounter } from '../../src/core/limits/key-counters.ts';
import { minuteWindow, quotaWindow } from '../../src/core/limits/quota-window.ts';

const at = (iso: string) => Date.parse(iso);

describe('limit windows, remembered between requests', () => {
  it('gives the UTC day, month and minute of each moment, whatever was asked before', () => {
    const today = quotaWindow('day', at('2026-11-21T23:59:59.999Z'));
    assert.deepEqual([today.startsAt, today.resetsAt], [at('2026-11-21T00:00:00Z'), at('2026-11-22T00:00:00Z')]);
    assert.equal(quotaWindow('day', at('2026-11-21T08:00:00Z')), today, 'the same window object within the day');
    // A usage record of yesterday, then today again: each gets its own window.
    assert.equal(quotaWindow('day', at('2026-11-20T23:00:00Z')).startsAt, at('2026-11-20T00:00:00Z'));
    assert.equal(quotaWindow('day', at('2026-11-21T10:00:00Z')), today);
    assert.equal(quotaWindow('day', at('2026-11-22T00:00:00Z')).startsAt, at('2026-11-22T00:00:00Z'), 'midnight starts the next day');

    const month = quotaWindow('month', at('2026-12-31T12:00:00Z'));
    assert.deepEqual([month.startsAt, month.resetsAt], [at('2026-12-01T00:00:00Z'), at('2027-01-01T00:00:00Z')]);
    assert.notEqual(quotaWindow('month', at('2027-01-01T00:00:00Z')).id, month.id);

    const minute = minuteWindow(at('2026-11-21T10:00:59.999Z'));
    assert.deepEqual([minute.startsAt, minute.resetsAt], [at('2026-11-21T10:00:00Z'), at('2026-11-21T10:01:00Z')]);
    assert.equal(minuteWindow(at('2026-11-21T10:01:00Z')).startsAt, at('2026-11-21T10:01:00Z'));
  });

  it('names a key counter per window and kind, and a slot counter per model', () => {
    const today = quotaWindow('day', at('2026-11-21T12:00:00Z'));
    const yesterday = quotaWindow('day', at('2026-11-20T12:00:00Z'));
    assert.equal(windowCounter('abc', 'tokens', today), `{abc}:tokens:${today.id}`);
    assert.equal(windowCounter('abc', 'tokens', yesterday), `{abc}:tokens:${yesterday.id}`);
    assert.equal(windowCounter('abc', 'tokens', today), `{abc}:tokens:${today.id}`);
    assert.equal(windowCounter('abc', 'calls', today), `{abc}:calls:${today.id}`);
    assert.equal(slotCounter('abc', 'glm-4.7'), '{abc}:slot:glm-4.7');
  });
});
