import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentRequests } from '../../src/core/metrics/recent-requests.ts';

const minute = 60_000;

describe('RecentRequests: the last day of model calls by minute', () => {
  it('sums requests, failures and times over a window, and forgets what is older than a day', () => {
    const recent = new RecentRequests();
    const start = Date.UTC(2026, 0, 1, 12, 0, 0);
    recent.record('glm-4.7', 200, 0.5, start);
    recent.record('glm-4.7', 502, 1.5, start + 10 * minute);
    recent.record('glm-4.7', 429, 0.001, start + 59 * minute);
    recent.record('glm-ocr', 200, 2, start + 59 * minute);
    const now = start + 59 * minute;
    assert.deepEqual(recent.window(60, now), [
      { model: 'glm-4.7', requests: 3, errors: 1, refused: 1, totalSeconds: 2.001, maxSeconds: 1.5 },
      { model: 'glm-ocr', requests: 1, errors: 0, refused: 0, totalSeconds: 2, maxSeconds: 2 },
    ]);
    assert.deepEqual(
      recent.window(50, now).map((stats) => [stats.model, stats.requests]),
      [
        ['glm-4.7', 2],
        ['glm-ocr', 1],
      ],
    );
    // A day and a half hour later the first two calls' minutes are gone, whatever window is asked for.
    recent.record('glm-4.7', 200, 1, start + 24 * 60 * minute + 30 * minute);
    assert.deepEqual(
      recent.window(48 * 60, start + 24 * 60 * minute + 30 * minute).map((stats) => [stats.model, stats.requests]),
      [
        ['glm-4.7', 2],
        ['glm-ocr', 1],
      ],
    );
  });
});
