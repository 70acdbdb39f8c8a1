import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RequestCountRecorder, type HourlyRequestCounts, type ModelRequestCounts, type RequestCountStore } from '../../src/core/metrics/request-counts.ts';

const hour = 3_600_000;
const day = 24 * hour;

/** The store's contract in memory: added counts summed by hour and model; `failAt` makes the n-th add throw. */
class MemoryStore implements RequestCountStore {
  readonly rows = new Map<string, HourlyRequestCounts>();
  adds = 0;
  failAt = new Set<number>();

  async add(counts: readonly HourlyRequestCounts[]): Promise<void> {
    this.adds += 1;
    if (this.failAt.has(this.adds)) throw new Error('database unavailable');
    for (const count of counts) {
      const key = `${count.hourStart}/${count.model}`;
      const row = this.rows.get(key);
      this.rows.set(
        key,
        row === undefined
          ? count
          : { ...row, requests: row.requests + count.requests, errors: row.errors + count.errors, refused: row.refused + count.refused },
      );
    }
  }

  async since(fromMs: number): Promise<ModelRequestCounts[]> {
    const sums = new Map<string, ModelRequestCounts>();
    for (const row of this.rows.values()) {
      if (row.hourStart < fromMs) continue;
      const sum = sums.get(row.model) ?? { model: row.model, requests: 0, errors: 0, refused: 0 };
      sums.set(row.model, { model: row.model, requests: sum.requests + row.requests, errors: sum.errors + row.errors, refused: sum.refused + row.refused });
    }
    return [...sums.values()];
  }

  async dropBefore(cutoffMs: number): Promise<number> {
    const old = [...this.rows].filter(([, row]) => row.hourStart < cutoffMs);
    for (const [key] of old) this.rows.delete(key);
    return old.length;
  }
}

describe('RequestCountRecorder: model calls by hour, added to the store in batches', () => {
  const start = Date.UTC(2026, 0, 31, 10, 15);

  it('counts by hour and model, classes 5xx as errors and 4xx as refused, and reads the last UTC days', async () => {
    const store = new MemoryStore();
    const recorder = new RequestCountRecorder(store, { now: () => start });
    recorder.record('glm-4.7', 200, start);
    recorder.record('glm-4.7', 502, start + 10 * 60_000);
    recorder.record('glm-4.7', 429, start + hour);
    recorder.record('glm-ocr', 200, start - 30 * day);
    recorder.record('glm-ocr', 200, start - 29 * day);
    await recorder.flush();
    assert.deepEqual(
      [...store.rows.values()].map((row) => [row.hourStart - Date.UTC(2026, 0, 31), row.model, row.requests, row.errors, row.refused]),
      [
        [-30 * day + 10 * hour, 'glm-ocr', 1, 0, 0],
        [-29 * day + 10 * hour, 'glm-ocr', 1, 0, 0],
        [10 * hour, 'glm-4.7', 2, 1, 0],
        [11 * hour, 'glm-4.7', 1, 0, 1],
      ],
      'one row per hour and model, in key order',
    );
    // The last 30 UTC days are 2 January to 31 January: the call of 1 January is older.
    assert.deepEqual(await recorder.lastDays(30), [
      { model: 'glm-ocr', requests: 1, errors: 0, refused: 0 },
      { model: 'glm-4.7', requests: 3, errors: 1, refused: 1 },
    ]);
    await recorder.flush();
    assert.equal(store.adds, 1, 'nothing new, nothing written');
    await recorder.close();
  });

  it('keeps the counts of a failed write for the next one, and never writes a written batch twice', async () => {
    const store = new MemoryStore();
    const errors: unknown[] = [];
    const recorder = new RequestCountRecorder(store, { now: () => start, maxBatch: 1, onError: (error) => errors.push(error) });
    store.failAt.add(2);
    recorder.record('glm-4.7', 200, start);
    recorder.record('glm-ocr', 500, start);
    await recorder.flush();
    assert.equal(errors.length, 1);
    assert.deepEqual(await recorder.lastDays(1), [{ model: 'glm-4.7', requests: 1, errors: 0, refused: 0 }], 'the first batch is in');
    // Counted while the store failed: added to what is kept.
    recorder.record('glm-ocr', 200, start);
    await recorder.close();
    assert.deepEqual(await recorder.lastDays(1), [
      { model: 'glm-4.7', requests: 1, errors: 0, refused: 0 },
      { model: 'glm-ocr', requests: 2, errors: 1, refused: 0 },
    ]);
  });

  it('removes the hours past the kept span, once an hour', async () => {
    const store = new MemoryStore();
    let now = start;
    const recorder = new RequestCountRecorder(store, { now: () => now, keptDays: 2 });
    recorder.record('glm-4.7', 200, start - 3 * day);
    recorder.record('glm-4.7', 200, start);
    await recorder.flush();
    assert.deepEqual(await recorder.lastDays(5), [{ model: 'glm-4.7', requests: 1, errors: 0, refused: 0 }]);
    now = start + 3 * day;
    recorder.record('glm-ocr', 200, now);
    await recorder.close();
    assert.deepEqual(await recorder.lastDays(5), [{ model: 'glm-ocr', requests: 1, errors: 0, refused: 0 }]);
  });
});
