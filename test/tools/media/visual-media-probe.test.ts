import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FfprobeBusyError, ffprobeSlots, probeVisualMedia } from '../../../src/tools/media/visual-media-probe.ts';
import { sampleMp4 } from '../../helpers/media-samples.ts';

/** Every ffprobe slot, held by another caller; the releases. */
async function takeEverySlot(): Promise<(() => void)[]> {
  const held: (() => void)[] = [];
  while (ffprobeSlots.held < ffprobeSlots.limit) held.push(await ffprobeSlots.acquire('another caller', AbortSignal.timeout(1000)));
  return held;
}

describe('probeVisualMedia', () => {
  it("reads a video's size and timing", async () => {
    const probed = await probeVisualMedia(await sampleMp4(64, 48, 1), 'caller', AbortSignal.timeout(20_000));
    assert.deepEqual([probed.width, probed.height], [64, 48]);
    assert.ok(probed.durationSeconds > 0.5 && probed.durationSeconds < 1.5, String(probed.durationSeconds));
  });

  it('runs a bounded number of ffprobe processes: with every slot taken a probe waits, then fails as busy', async () => {
    const video = await sampleMp4(64, 48, 1);
    const held = await takeEverySlot();
    assert.ok(held.length >= 2, `${held.length} slots`);
    try {
      const started = performance.now();
      await assert.rejects(probeVisualMedia(video, 'caller', AbortSignal.timeout(20_000), 200), FfprobeBusyError);
      assert.ok(performance.now() - started >= 190, 'it waited for a slot first');
      // A slot that comes free while a probe waits is its.
      const waiting = probeVisualMedia(video, 'caller', AbortSignal.timeout(20_000), 10_000);
      setTimeout(() => held.pop()?.(), 100);
      assert.equal((await waiting).width, 64);
    } finally {
      for (const release of held) release();
    }
    assert.equal((await probeVisualMedia(video, 'caller', AbortSignal.timeout(20_000))).height, 48);
  });

  it("a caller that leaves while waiting for a slot gets its own abort, not 'busy'", async () => {
    const video = await sampleMp4(64, 48, 1);
    const held = await takeEverySlot();
    try {
      const caller = new AbortController();
      const waiting = probeVisualMedia(video, 'caller', caller.signal, 10_000);
      caller.abort(new Error('the client left'));
      await assert.rejects(waiting, /the client left/);
    } finally {
      for (const release of held) release();
    }
  });
});

describe('FfprobeSlots fairness', () => {
  it("gives a freed slot to the callers in turn: one caller's many waiters do not keep another's one behind them", async () => {
    const held = await takeEverySlot();
    const order: string[] = [];
    const signal = AbortSignal.timeout(5000);
    /** Takes its slot, notes its turn and gives the slot back at once. */
    const wait = (caller: string, name: string) =>
      ffprobeSlots.acquire(caller, signal).then((release) => {
        order.push(name);
        setImmediate(release);
      });
    const waiters = [...Array.from({ length: 5 }, (_, index) => wait('busy caller', `busy ${index}`)), wait('quiet caller', 'quiet')];
    // Slots come free one by one: the quiet caller's turn comes second, not sixth.
    for (const release of held) release();
    await Promise.all(waiters);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order.slice(0, 2), ['busy 0', 'quiet'], order.join(', '));
    assert.equal(ffprobeSlots.held, 0);
  });
});
