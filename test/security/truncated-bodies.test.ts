import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/**
 * A multipart body that ends early — without its closing boundary, in the middle of a part's
 * header, in the middle of the file, or because the client broke the connection — is the
 * caller's mistake: it may cost that one request, never the process. Each case is sent over a raw
 * TCP connection (no client library would send it), then the process must have raised no
 * uncaught error and must still answer the next request.
 */
describe('Truncated and broken request bodies', () => {
  let test: TestPlatform;
  let port: number;
  const uncaught: unknown[] = [];
  const recordUncaught = (error: unknown) => uncaught.push(error);

  before(async () => {
    test = await startTestPlatform();
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    port = (test.app.server.address() as AddressInfo).port;
    // Without this listener an 'error' event nobody handles ends the test process at once; with
    // it, each case can say which request brought it.
    process.on('uncaughtException', recordUncaught);
  });
  after(async () => {
    process.off('uncaughtException', recordUncaught);
    await test.close();
  });

  const boundary = 'model-platform-truncated-body';
  const textPart = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const fileHead = (filename: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;

  /** How the body ends: its last byte is sent and the request is complete, or the client goes away. */
  type Ending = 'complete' | 'half-close' | 'destroy';

  /**
   * Sends a POST whose body is `body`; with `declaredBytes` larger than the body, the request is
   * cut short. Resolves with the raw answer (empty when the server had none to give).
   */
  async function sendRaw(path: string, body: Buffer, ending: Ending, declaredBytes = body.length): Promise<string> {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', () => undefined);
    const closed = once(socket, 'close');
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${test.authorization}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${declaredBytes}\r\nConnection: close\r\n\r\n`,
    );
    socket.write(body);
    if (ending === 'destroy') {
      // Let the server start reading the part before the connection breaks.
      await sleep(100);
      socket.destroy();
    } else if (ending === 'half-close') {
      await sleep(100);
      socket.end();
    }
    const timeout = sleep(10_000).then(() => socket.destroy());
    await Promise.race([closed, timeout]);
    return Buffer.concat(received).toString('latin1');
  }

  /** The process survived: nothing uncaught so far, and a new request is answered. */
  async function assertStillServing(label: string): Promise<void> {
    // Give a late 'error' event (emitted on a later tick) the chance to surface.
    await sleep(200);
    const messages = uncaught.splice(0).map((error) => (error instanceof Error ? error.message : String(error)));
    assert.deepEqual(messages, [], `${label}: no uncaught error`);
    const response = await fetch(`http://127.0.0.1:${port}/paas/v4/files`, { headers: { authorization: test.authorization } });
    assert.equal(response.status, 200, `${label}: the next request is answered`);
    await response.arrayBuffer();
  }

  const routes = [
    { path: '/paas/v4/files', fields: textPart('purpose', 'user_data') },
    { path: '/paas/v4/audio/transcriptions', fields: textPart('model', 'glm-asr-2512') },
  ];
  const fileBytes = Buffer.alloc(64 * 1024, 'a');

  it('a body that ends early — without its closing boundary, inside a text field, inside a part header — is a 400 in the platform body', async () => {
    for (const { path, fields } of routes) {
      // A file part that never ended: the form is malformed (1210), and nothing is stored.
      const cutFile = await sendRaw(path, Buffer.concat([Buffer.from(fields + fileHead('cut.bin')), fileBytes]), 'complete');
      assert.match(cutFile, /^HTTP\/1\.1 400 /, `${path}, no closing boundary after the file: ${cutFile.slice(0, 300)}`);
      assert.match(cutFile, /"code":"1210"/, `${path}, no closing boundary after the file`);
      await assertStillServing(`${path}, no closing boundary after the file`);

      // A form cut inside a text field or a part header is incomplete: refused whole (1210), never
      // taken without its last field.
      const cutText = await sendRaw(path, Buffer.from(fields.slice(0, -2)), 'complete');
      assert.match(cutText, /^HTTP\/1\.1 400 /, `${path}, cut inside a text field: ${cutText.slice(0, 300)}`);
      assert.match(cutText, /"code":"1210","message":"The multipart body ended before its closing boundary/);
      await assertStillServing(`${path}, cut inside a text field`);

      const cutHeader = await sendRaw(path, Buffer.from(fields + `--${boundary}\r\nContent-Disposition: form-data; name="fi`), 'complete');
      assert.match(cutHeader, /^HTTP\/1\.1 400 /, `${path}, cut inside a part header: ${cutHeader.slice(0, 300)}`);
      assert.match(cutHeader, /"code":"1210","message":"The multipart body ended before its closing boundary/);

      // Every part whole but the closing boundary missing: still incomplete, and nothing is stored.
      const unclosed = await sendRaw(
        path,
        Buffer.concat([Buffer.from(fields + fileHead('whole.bin')), fileBytes, Buffer.from(`\r\n`), Buffer.from(textPart('request_id', 'unclosed-form-1'))]),
        'complete',
      );
      assert.match(unclosed, /^HTTP\/1\.1 400 /, `${path}, no closing boundary after whole parts: ${unclosed.slice(0, 300)}`);
      assert.match(unclosed, /"code":"1210","message":"The multipart body ended before its closing boundary/);
      const listed = await (await fetch(`http://127.0.0.1:${port}/paas/v4/files`, { headers: { authorization: test.authorization } })).text();
      assert.ok(!listed.includes('whole.bin'), `${path}: the unclosed form stored nothing: ${listed}`);
      await assertStillServing(`${path}, cut inside a part header`);
    }
  });

  it('a client that stops sending or breaks the connection in the middle of a file or a part header costs only its own request', async () => {
    for (const { path, fields } of routes) {
      const partial = Buffer.concat([Buffer.from(fields + fileHead('cut.bin')), fileBytes]);
      await sendRaw(path, partial, 'half-close', partial.length + 1024 * 1024);
      await assertStillServing(`${path}, half-closed in the middle of the file`);

      await sendRaw(path, partial, 'destroy', partial.length + 1024 * 1024);
      await assertStillServing(`${path}, destroyed in the middle of the file`);

      await sendRaw(path, Buffer.from(fields + `--${boundary}\r\nContent-Dispos`), 'destroy', 4096);
      await assertStillServing(`${path}, destroyed in the middle of a part header`);
    }
  });
});
