import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FfprobeBusyError, ffprobeSlots, probeVisualMedia } from '../../../src/tools/media/visual-media-probe.ts';
import { sampleMp4 } from '../../helpers/media-samples.ts';

describe('probeVisualMedia', () => {
  it("reads a video's size and timing", async () => {
    const probed = await probeVisualMedia(await sampleMp4(64, 48, 1), AbortSignal.timeout(20_000));
    assert.deepEqual([probed.width, probed.height], [64, 48]);
    assert.ok(probed.durationSeconds > 0.5 && probed.durationSeconds < 1.5, String(probed.durationSeconds));
  });

  it('runs a bounded number of ffprobe processes: with every slot taken a probe waits, then fails as busy', async () => {
    const video = await sampleMp4(64, 48, 1);
    const held: (() => void)[] = [];
    for (let release = ffprobeSlots.tryAcquire(); release !== undefined; release = ffprobeSlots.tryAcquire()) held.push(release);
    assert.ok(held.length >= 2, `${held.length} slots`);
    try {
      const started = performance.now();
      await assert.rejects(probeVisualMedia(video, AbortSignal.timeout(20_000), 200), FfprobeBusyError);
      assert.ok(performance.now() - started >= 190, 'it waited for a slot first');
      // A slot that comes free while a probe waits is its.
      const waiting = probeVisualMedia(video, AbortSignal.timeout(20_000), 10_000);
      setTimeout(() => held.pop()?.(), 100);
      assert.equal((await waiting).width, 64);
    } finally {
      for (const release of held) release();
    }
    assert.equal((await probeVisualMedia(video, AbortSignal.timeout(20_000))).height, 48);
  });

  it("a caller that leaves while waiting for a slot gets its own abort, not 'busy'", async () => {
    const video = await sampleMp4(64, 48, 1);
    const held: (() => void)[] = [];
    for (let release = ffprobeSlots.tryAcquire(); release !== undefined; release = ffprobeSlots.tryAcquire()) held.push(release);
    try {
      const caller = new AbortController();
      const waiting = probeVisualMedia(video, caller.signal, 10_000);
      caller.abort(new Error('the client left'));
      await assert.rejects(waiting, /the client left/);
    } finally {
      for (const release of held) release();
    }
  });
});
