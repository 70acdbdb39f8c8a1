import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyCounters } from '../../src/core/limits/key-counters.ts';
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

  it('names a key counter per window, and an earlier window does not displace the present one', () => {
    const counters = new KeyCounters('abc');
    const today = quotaWindow('day', at('2026-11-21T12:00:00Z'));
    const yesterday = quotaWindow('day', at('2026-11-20T12:00:00Z'));
    assert.equal(counters.of('tokens', today), `{abc}:tokens:${today.id}`);
    assert.equal(counters.of('tokens', yesterday), `{abc}:tokens:${yesterday.id}`);
    assert.equal(counters.of('tokens', today), `{abc}:tokens:${today.id}`);
    assert.equal(counters.of('calls', today), `{abc}:calls:${today.id}`);
    assert.equal(counters.slot('glm-4.7'), '{abc}:slot:glm-4.7');
  });

  it('keeps the parts of a check per window and limit: a new limit or window gets a new part', () => {
    const counters = new KeyCounters('abc');
    const today = quotaWindow('day', at('2026-11-21T12:00:00Z'));
    const part = counters.part('tokens', today, 1000);
    assert.deepEqual(part, { counter: `{abc}:tokens:${today.id}`, limit: 1000, expiresAt: today.resetsAt });
    assert.equal(counters.part('tokens', today, 1000), part, 'the same part call after call');
    // A policy change within the window: the new limit, the same counter.
    const raised = counters.part('tokens', today, 5000);
    assert.deepEqual(raised, { counter: part.counter, limit: 5000, expiresAt: today.resetsAt });
    // A usage record of yesterday gets yesterday's part and leaves today's kept.
    const yesterday = quotaWindow('day', at('2026-11-20T12:00:00Z'));
    assert.deepEqual(counters.part('tokens', yesterday, 5000), { counter: `{abc}:tokens:${yesterday.id}`, limit: 5000, expiresAt: yesterday.resetsAt });
    assert.equal(counters.part('tokens', today, 5000), raised);
    const tomorrow = quotaWindow('day', at('2026-11-22T12:00:00Z'));
    assert.equal(counters.part('tokens', tomorrow, 5000).counter, `{abc}:tokens:${tomorrow.id}`);
    assert.equal(counters.part('rate', minuteWindow(at('2026-11-21T12:00:00Z')), 60).limit, 60, 'each kind has its own part');
  });
});
