import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Http1ResponseParser, HttpProtocolError, type ResponseHead } from '../../src/core/http/http1-response-parser.ts';

interface Parsed {
  heads: ResponseHead[];
  chunks: Buffer[];
  readonly body: string;
  ended: boolean;
  parser: Http1ResponseParser;
}

/** Feeds `wire` to a parser in pieces of `pieceSize` bytes (1: every byte on its own). */
function parse(wire: string, pieceSize = Number.POSITIVE_INFINITY): Parsed {
  const parsed: Parsed = {
    heads: [],
    chunks: [],
    get body() {
      return Buffer.concat(this.chunks).toString('utf8');
    },
    ended: false,
    parser: undefined as unknown as Http1ResponseParser,
  };
  const parser = new Http1ResponseParser({
    onHead: (head) => parsed.heads.push(head),
    onBody: (chunk) => parsed.chunks.push(Buffer.from(chunk)),
    onEnd: () => (parsed.ended = true),
  });
  parsed.parser = parser;
  const bytes = Buffer.from(wire, 'utf8');
  const step = Math.min(pieceSize, bytes.length);
  for (let offset = 0; offset < bytes.length; offset += step) parser.execute(bytes.subarray(offset, offset + step));
  return parsed;
}

const chunked = 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: yes\r\n\r\n';

describe('Http1ResponseParser', () => {
  it('reads a Content-Length answer, whole or a byte at a time', () => {
    for (const pieceSize of [Number.POSITIVE_INFINITY, 1, 7]) {
      const parsed = parse('HTTP/1.1 200 OK\r\nContent-Length: 11\r\nKeep-Alive: timeout=5\r\n\r\n{"ok":true}', pieceSize);
      assert.deepEqual(parsed.heads, [{ status: 200, keepAlive: true, keepAliveSeconds: 5 }]);
      assert.equal(parsed.body, '{"ok":true}');
      assert.equal(parsed.ended, true);
      assert.equal(parsed.parser.reusable, true);
    }
  });

  it('reads a chunked answer with extensions and trailers, whole or a byte at a time', () => {
    for (const pieceSize of [Number.POSITIVE_INFINITY, 1, 3]) {
      const parsed = parse(chunked, pieceSize);
      assert.equal(parsed.heads[0]?.status, 200);
      assert.equal(parsed.body, 'hello, world');
      assert.equal(parsed.ended, true);
      assert.equal(parsed.parser.reusable, true);
    }
  });

  it('keeps multi-byte characters split across chunks intact', () => {
    const text = '你好，世界';
    const bytes = Buffer.byteLength(text);
    const parsed = parse(`HTTP/1.1 200 OK\r\nContent-Length: ${bytes}\r\n\r\n${text}`, 2);
    assert.equal(parsed.body, text);
  });

  it('skips interim answers and answers without a body', () => {
    const parsed = parse('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n');
    assert.deepEqual(
      parsed.heads.map((head) => head.status),
      [204],
    );
    assert.equal(parsed.ended, true);
  });

  it('reads an answer framed by the end of the connection, which is then not reused', () => {
    const parsed = parse('HTTP/1.0 200 OK\r\n\r\npart one, ');
    parsed.parser.execute(Buffer.from('part two'));
    assert.equal(parsed.ended, false);
    parsed.parser.finish();
    assert.equal(parsed.body, 'part one, part two');
    assert.equal(parsed.ended, true);
    assert.equal(parsed.parser.reusable, false);
  });

  it('does not reuse a connection the server closes or an HTTP/1.0 one without keep-alive', () => {
    assert.equal(parse('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n').parser.reusable, false);
    assert.equal(parse('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n').parser.reusable, false);
    assert.equal(parse('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n').parser.reusable, true);
    // Transfer-Encoding with Content-Length: the coding frames the body and the connection goes.
    assert.equal(parse('HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n').parser.reusable, false);
  });

  it('says an answer cut short by the end of the connection is incomplete', () => {
    const parsed = parse('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345');
    assert.throws(() => parsed.parser.finish(), HttpProtocolError);
    const chunkedParsed = parse('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel');
    assert.throws(() => chunkedParsed.parser.finish(), /closed before the answer was complete/);
  });

  it('refuses what is not HTTP/1.1', () => {
    const refused = [
      'SSH-2.0-OpenSSH\r\n\r\n',
      'HTTP/2 200\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n',
      'HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\n\r\n',
      'HTTP/1.1 200 OK\r\nBad Header: x\r\n\r\n',
      'HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n',
      'HTTP/1.1 200 OK\r\nX-Bare: a\nContent-Length: 0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nX-Bare: a\rb\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n',
      'HTTP/1.1 101 Switching Protocols\r\n\r\n',
      `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\n\r\n`,
    ];
    for (const wire of refused) assert.throws(() => parse(wire), HttpProtocolError, JSON.stringify(wire.slice(0, 60)));
  });

  it('refuses bytes after the end of an answer: they cannot belong to anything', () => {
    assert.throws(() => parse('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n'), /after the end of its answer/);
  });
});
