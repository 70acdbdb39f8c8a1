import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runInThread } from '../../src/core/threads/one-shot-thread.ts';

const worker = new URL('./fixtures/runaway-thread-worker.ts', import.meta.url);
const limits = { timeoutMs: 10_000, heapMegabytes: 64 };

describe('runInThread: work in a thread of its own, within a time and heap limit', () => {
  it("answers with the work's result, or rejects with the message it threw", async () => {
    assert.deepEqual(await runInThread(worker, 'echo', limits, 'reading the test', AbortSignal.timeout(20_000)), { echoed: true });
    await assert.rejects(runInThread(worker, 'throw', limits, 'reading the test', AbortSignal.timeout(20_000)), { message: 'the document has no end' });
  });

  it('ends a thread that passes its heap limit, with a message naming the task and the limit', async () => {
    await assert.rejects(runInThread(worker, 'fill-heap', limits, 'reading the test', AbortSignal.timeout(20_000)), {
      message: 'reading the test needed more than 64 MB of memory',
    });
  });

  it('ends a thread that passes its time limit, and one whose caller went away', async () => {
    await assert.rejects(runInThread(worker, 'spin', { ...limits, timeoutMs: 300 }, 'reading the test', AbortSignal.timeout(20_000)), {
      message: 'reading the test took longer than 0.3 s',
    });
    const caller = new AbortController();
    setTimeout(() => caller.abort(new Error('the client went away')), 300);
    await assert.rejects(runInThread(worker, 'spin', limits, 'reading the test', caller.signal), { message: 'the client went away' });
  });
});
