import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OpenedLater } from '../../src/core/streams/opened-later.ts';
import { WatchedParts, type PartsEnd } from '../../src/core/streams/watched-parts.ts';

async function* numbers(count: number, failAt?: number, closed?: { value: boolean }) {
  try {
    for (let index = 0; index < count; index += 1) {
      if (index === failAt) throw new Error('engine broke');
      yield index;
    }
  } finally {
    if (closed !== undefined) closed.value = true;
  }
}

async function readAll<Part>(parts: AsyncIterable<Part>): Promise<Part[]> {
  const read: Part[] = [];
  for await (const part of parts) read.push(part);
  return read;
}

describe('WatchedParts', () => {
  it('passes every part and tells each watcher once that the stream ran out, one layer for both', async () => {
    const ends: string[] = [];
    const inner = WatchedParts.of(numbers(3), (end) => ends.push(`inner ${end.kind}`));
    const outer = WatchedParts.of(inner, (end) => ends.push(`outer ${end.kind}`));
    assert.equal(outer, inner);
    assert.deepEqual(await readAll(outer), [0, 1, 2]);
    assert.deepEqual(ends, ['inner done', 'outer done']);
  });

  it('hands out the part read ahead first, and wraps again once reading has started', async () => {
    const ends: PartsEnd[] = [];
    const parts = WatchedParts.of(numbers(2), (end) => ends.push(end));
    assert.deepEqual(await parts.readAhead(), { done: false, value: 0 });
    assert.notEqual(
      WatchedParts.of(parts, () => undefined),
      parts,
    );
    assert.deepEqual(await readAll(parts), [0, 1]);
    assert.deepEqual(ends, [{ kind: 'done' }]);
  });

  it('tells the watchers the error a part failed with, rethrows it and ends', async () => {
    const ends: PartsEnd[] = [];
    const parts = WatchedParts.of(numbers(5, 2), (end) => ends.push(end));
    await assert.rejects(readAll(parts), /engine broke/);
    assert.equal(ends.length, 1);
    assert.equal(ends[0]?.kind, 'failed');
    assert.deepEqual(await parts.next(), { done: true, value: undefined });
  });

  it('a consumer that stops tells the watchers and closes the inner stream', async () => {
    const ends: PartsEnd[] = [];
    const closed = { value: false };
    const parts = WatchedParts.of(numbers(5, undefined, closed), (end) => ends.push(end));
    for await (const part of parts) if (part === 1) break;
    assert.deepEqual(ends, [{ kind: 'stopped' }]);
    assert.equal(closed.value, true);
    await parts.return();
    assert.equal(ends.length, 1);
  });
});

describe('OpenedLater', () => {
  it('opens on the first next(), then reads from what it opened', async () => {
    let opened = 0;
    const parts = new OpenedLater(async () => {
      opened += 1;
      return numbers(3);
    });
    assert.equal(opened, 0);
    assert.deepEqual(await readAll(parts), [0, 1, 2]);
    assert.equal(opened, 1);
  });

  it('opens nothing when stopped before the first next(), and ends after a failed opening', async () => {
    let opened = 0;
    const stoppedEarly = new OpenedLater(async () => {
      opened += 1;
      return numbers(1);
    });
    assert.deepEqual(await stoppedEarly.return(), { done: true, value: undefined });
    assert.deepEqual(await stoppedEarly.next(), { done: true, value: undefined });
    assert.equal(opened, 0);
    const failing = new OpenedLater<number>(() => Promise.reject(new Error('no deployment')));
    await assert.rejects(failing.next(), /no deployment/);
    assert.deepEqual(await failing.next(), { done: true, value: undefined });
  });

  it('a stop while opening closes the stream once it is open', async () => {
    const closed = { value: false };
    const parts = new OpenedLater(async () => numbers(3, undefined, closed));
    const first = parts.next();
    await parts.return();
    assert.deepEqual(await first, { done: false, value: 0 });
    assert.equal(closed.value, true);
  });
});
