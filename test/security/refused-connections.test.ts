import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { App } from '../../src/http/app-types.ts';
import { buildApp } from '../../src/platform/build-app.ts';
import { defaultServerLimits } from '../../src/http/server-limits.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { assertRawPlatformError, completeResponse, openRawClient, type RawClient } from './raw-http.ts';

const chatPath = '/paas/v4/chat/completions';

/** Without the defence the socket stays open until the request timeout (minutes): the test fails instead of hanging. */
const failAfter = { timeout: 15_000 };

describe('a request refused before its body is read closes its connection', () => {
  let test: TestPlatform;
  let app: App;
  let port: number;

  before(async () => {
    test = await startTestPlatform({ config: { models: {} } });
    // The default limits: a five-minute request timeout, so only the refusal can close the socket soon.
    app = await buildApp({ ...test.platform, logger: false, onResponseMismatch: test.contract.report }, defaultServerLimits);
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await app.close();
    await test.close();
  });

  /** Sends `head` and a first piece of body, then a byte every 50 ms; how long after the answer the socket closed. */
  async function trickle(head: string): Promise<{ client: RawClient; closedAfterAnswerMs: number; connection: string | undefined }> {
    const client = await openRawClient(port);
    client.write(`${head}{"model":"glm-4.7","messages":[`);
    const timer = setInterval(() => client.write(' '), 50);
    try {
      const answer = await completeResponse(client);
      const answeredAt = Date.now();
      await client.closed;
      return { client, closedAfterAnswerMs: Date.now() - answeredAt, connection: answer.headers.get('connection') };
    } finally {
      clearInterval(timer);
    }
  }

  it('closes an unauthenticated trickled body within a second of its 401', failAfter, async () => {
    const { client, closedAfterAnswerMs, connection } = await trickle(
      `POST ${chatPath} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
    );
    assertRawPlatformError(client.received(), { status: 401, code: '1001' });
    assert.equal(connection, 'close');
    assert.ok(closedAfterAnswerMs < 1000, `closed ${closedAfterAnswerMs} ms after the 401`);
  });

  it('closes a body declared over the size limit when it is refused, the key being valid', failAfter, async () => {
    const { client, closedAfterAnswerMs, connection } = await trickle(
      `POST ${chatPath} HTTP/1.1\r\nHost: x\r\nAuthorization: ${test.authorization}\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n`,
    );
    assertRawPlatformError(client.received(), { status: 400, code: '1210' });
    assert.equal(connection, 'close');
    assert.ok(closedAfterAnswerMs < 1000, `closed ${closedAfterAnswerMs} ms after the refusal`);
  });

  it('keeps a connection whose request was read whole open for the next one', failAfter, async () => {
    const client = await openRawClient(port);
    client.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const answer = await completeResponse(client);
    assert.equal(answer.status, 200);
    assert.notEqual(answer.headers.get('connection'), 'close');
    assert.equal(client.socket.destroyed, false);
    client.socket.destroy();
  });
});
