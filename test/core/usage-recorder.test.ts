import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UsageRecord } from '../../src/core/usage/usage-record.ts';
import { UsageRecorder } from '../../src/core/usage/usage-recorder.ts';

const record = (requestId: string): UsageRecord => ({
  keyId: 'key',
  model: 'glm-4.7',
  endpoint: 'chat.completions',
  requestId,
  promptTokens: 3,
  completionTokens: 5,
  cachedTokens: 1,
  createdAt: 1,
});

describe('UsageRecorder', () => {
  it('writes nothing on the request path and everything in batches on flush', async () => {
    const batches: string[][] = [];
    const recorder = new UsageRecorder(async (records) => void batches.push(records.map((item) => item.requestId)), { maxBatch: 2, flushIntervalMs: 60_000 });
    recorder.record(record('a'));
    assert.deepEqual(batches, [], 'record() does not write');
    recorder.record(record('b'));
    recorder.record(record('c'));
    await recorder.close();
    assert.deepEqual(batches, [['a', 'b'], ['c']]);
  });

  it('keeps records when a write fails and writes them on the next flush', async () => {
    let fail = true;
    const written: string[] = [];
    const errors: unknown[] = [];
    const recorder = new UsageRecorder(
      async (records) => {
        if (fail) throw new Error('database down');
        written.push(...records.map((item) => item.requestId));
      },
      { flushIntervalMs: 60_000, onError: (error) => errors.push(error) },
    );
    recorder.record(record('x'));
    await recorder.flush();
    assert.equal(errors.length, 1);
    assert.deepEqual(written, []);
    fail = false;
    recorder.record(record('y'));
    await recorder.close();
    assert.deepEqual(written, ['x', 'y']);
  });

  it('flushes on its timer', async () => {
    const written: string[] = [];
    const recorder = new UsageRecorder(async (records) => void written.push(...records.map((item) => item.requestId)), { flushIntervalMs: 20 });
    recorder.record(record('t'));
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.deepEqual(written, ['t']);
    await recorder.close();
  });
});
