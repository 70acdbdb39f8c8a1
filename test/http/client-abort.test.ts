import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { FastifyReply } from 'fastify';
import { toAbortSignal } from '../../src/core/chat/abort-source.ts';
import { ClientAbort } from '../../src/http/client-abort.ts';
import { ResponseEnd } from '../../src/http/response-end.ts';

/** The end of a response whose raw response closes when told, finished or not. */
function fakeResponseEnd(): { end: ResponseEnd; close: (finished: boolean) => void } {
  const raw = Object.assign(new EventEmitter(), { writableFinished: false });
  return {
    end: new ResponseEnd({ raw } as unknown as FastifyReply),
    close: (finished) => {
      raw.writableFinished = finished;
      raw.emit('close');
    },
  };
}

describe('ClientAbort', () => {
  it('tells its listeners once when the client leaves before the answer is complete', () => {
    const { end, close } = fakeResponseEnd();
    const abort = new ClientAbort(end);
    const heard: string[] = [];
    const kept = () => heard.push('kept');
    const removed = () => heard.push('removed');
    abort.addEventListener('abort', kept);
    abort.addEventListener('abort', removed);
    abort.removeEventListener('abort', removed);
    assert.equal(abort.aborted, false);
    abort.throwIfAborted();
    close(false);
    close(false);
    assert.deepEqual(heard, ['kept']);
    assert.equal(abort.aborted, true);
    assert.match(String((abort.reason as Error).message), /client closed the connection/);
    assert.throws(() => abort.throwIfAborted(), /client closed the connection/);
  });

  it('stays quiet when the connection closes after a complete answer', () => {
    const { end, close } = fakeResponseEnd();
    const abort = new ClientAbort(end);
    let heard = false;
    abort.addEventListener('abort', () => (heard = true));
    close(true);
    assert.equal(heard, false);
    assert.equal(abort.aborted, false);
  });

  it('makes a real AbortSignal only when asked, aborted with it before or after', () => {
    const before = fakeResponseEnd();
    const early = new ClientAbort(before.end);
    before.close(false);
    assert.equal(toAbortSignal(early).aborted, true);
    assert.equal(toAbortSignal(early).reason, early.reason);

    const after = fakeResponseEnd();
    const late = new ClientAbort(after.end);
    const signal = toAbortSignal(late);
    assert.equal(signal, late.signal, 'one signal per source');
    assert.equal(signal.aborted, false);
    after.close(false);
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason, late.reason);

    const plain = new AbortController().signal;
    assert.equal(toAbortSignal(plain), plain);
  });
});
