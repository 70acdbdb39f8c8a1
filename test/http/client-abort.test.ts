import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { FastifyReply } from 'fastify';
import { abortOnDisconnect } from '../../src/http/client-abort.ts';
import { ResponseEnd } from '../../src/http/response-end.ts';

/** A reply whose raw response closes when told, finished or not. */
function fakeReply(): { reply: FastifyReply; close: (finished: boolean) => void } {
  const raw = Object.assign(new EventEmitter(), { writableFinished: false });
  const request = { responseEnd: undefined as unknown as ResponseEnd };
  const reply = { raw, request } as unknown as FastifyReply;
  request.responseEnd = new ResponseEnd(reply);
  return {
    reply,
    close: (finished) => {
      raw.writableFinished = finished;
      raw.emit('close');
    },
  };
}

describe('abortOnDisconnect', () => {
  it('tells its listeners once when the client leaves before the answer is complete', () => {
    const { reply, close } = fakeReply();
    const abort = abortOnDisconnect(reply);
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
    const { reply, close } = fakeReply();
    const abort = abortOnDisconnect(reply);
    let heard = false;
    abort.addEventListener('abort', () => (heard = true));
    close(true);
    assert.equal(heard, false);
    assert.equal(abort.aborted, false);
  });

  it("gives a request one signal however often it is asked for, aborted after the end's listeners", () => {
    const { reply, close } = fakeReply();
    const order: string[] = [];
    const first = abortOnDisconnect(reply);
    first.addEventListener('abort', () => order.push('aborted'));
    reply.request.responseEnd.onEnd(() => order.push('ended'));
    assert.equal(abortOnDisconnect(reply), first);
    close(false);
    assert.deepEqual(order, ['ended', 'aborted']);
    assert.equal(abortOnDisconnect(reply).aborted, true);
  });

  it('is aborted at once when the client left before the signal was asked for', () => {
    const { reply, close } = fakeReply();
    close(false);
    const late = abortOnDisconnect(reply);
    assert.equal(late.aborted, true);
    assert.match(String((late.reason as Error).message), /client closed the connection/);
  });
});
