import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, beforeEach, describe, it } from 'node:test';
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
  beforeEach(() => {
    uncaught.length = 0;
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
    assert.deepEqual(
      uncaught.map((error) => (error instanceof Error ? error.message : String(error))),
      [],
      `${label}: no uncaught error`,
    );
    const response = await fetch(`http://127.0.0.1:${port}/paas/v4/files`, { headers: { authorization: test.authorization } });
    assert.equal(response.status, 200, `${label}: the next request is answered`);
    await response.arrayBuffer();
  }

  const routes = [
    { path: '/paas/v4/files', fields: textPart('purpose', 'user_data') },
    { path: '/paas/v4/audio/transcriptions', fields: textPart('model', 'glm-asr-2512') },
  ];
  const fileBytes = Buffer.alloc(64 * 1024, 'a');

  for (const { path, fields } of routes) {
    it(`${path}: a body that ends after the file without its closing boundary is a 1210, not a crash`, async () => {
      const body = Buffer.concat([Buffer.from(fields + fileHead('cut.bin')), fileBytes]);
      const answer = await sendRaw(path, body, 'complete');
      assert.match(answer, /^HTTP\/1\.1 400 /, answer.slice(0, 200));
      assert.match(answer, /"code":"1210"/);
      await assertStillServing(`${path}, no closing boundary`);
    });

    // A text part that never ended is never taken: the field is missing (1213), not half-read.
    it(`${path}: a body that ends inside a text field is refused, the cut field not taken`, async () => {
      const answer = await sendRaw(path, Buffer.from(fields.slice(0, -2)), 'complete');
      assert.match(answer, /^HTTP\/1\.1 400 /, answer.slice(0, 200));
      assert.match(answer, /"code":"1213","message":"Missing required parameter: '(purpose|model)'/);
      await assertStillServing(`${path}, text field without boundary`);
    });

    it(`${path}: a body cut in the middle of a part's header is refused`, async () => {
      const answer = await sendRaw(path, Buffer.from(fields + `--${boundary}\r\nContent-Disposition: form-data; name="fi`), 'complete');
      assert.match(answer, /^HTTP\/1\.1 400 /, answer.slice(0, 200));
      assert.match(answer, /"code":"1213","message":"Missing required parameter: 'file'/);
      await assertStillServing(`${path}, cut mid-header`);
    });

    it(`${path}: a client that stops sending in the middle of the file and half-closes`, async () => {
      const body = Buffer.concat([Buffer.from(fields + fileHead('cut.bin')), fileBytes]);
      await sendRaw(path, body, 'half-close', body.length + 1024 * 1024);
      await assertStillServing(`${path}, half-closed mid-file`);
    });

    it(`${path}: a client that breaks the connection in the middle of the file`, async () => {
      const body = Buffer.concat([Buffer.from(fields + fileHead('cut.bin')), fileBytes]);
      await sendRaw(path, body, 'destroy', body.length + 1024 * 1024);
      await assertStillServing(`${path}, destroyed mid-file`);
    });

    it(`${path}: a client that breaks the connection in the middle of a part's header`, async () => {
      await sendRaw(path, Buffer.from(fields + `--${boundary}\r\nContent-Dispos`), 'destroy', 4096);
      await assertStillServing(`${path}, destroyed mid-header`);
    });
  }
});
