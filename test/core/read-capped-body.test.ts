import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { AnswerOverCapError } from '../../src/backends/engine-http/answer-over-cap-error.ts';
import { readCappedBody } from '../../src/backends/engine-http/read-capped-body.ts';

describe('readCappedBody', () => {
  it('reads a body up to its cap whole', async () => {
    const body = Readable.from([Buffer.from('ab'), Buffer.from('cd')]);
    assert.equal((await readCappedBody(body, 4, 'the answer body')).toString(), 'abcd');
  });

  it('stops at the first chunk past the cap and destroys the body', async () => {
    let pulled = 0;
    const body = new Readable({
      read() {
        pulled += 1;
        this.push(pulled > 1000 ? null : Buffer.alloc(1024));
      },
    });
    await assert.rejects(readCappedBody(body, 10 * 1024, 'the output file', 'maxResponseBytes'), (error: unknown) => {
      assert.ok(error instanceof AnswerOverCapError);
      assert.match(error.message, /the output file is over its cap of 10240 bytes \(maxResponseBytes\)/);
      return true;
    });
    assert.ok(body.destroyed, 'the body is destroyed');
    assert.ok(pulled < 100, `read ${pulled} chunks`);
  });
});
