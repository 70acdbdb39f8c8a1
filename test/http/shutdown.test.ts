import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startGatedChatEngine, type GatedChatEngine } from '../limits/gated-chat-engine.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const streamBody = JSON.stringify({ model: 'glm-4.7', messages: [{ role: 'user', content: 'Hello' }], stream: true });

describe('a server that shuts down', () => {
  let engine: GatedChatEngine;
  let test: TestPlatform;
  before(async () => {
    engine = await startGatedChatEngine();
    test = await startTestPlatform({ config: { models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl } } } });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await engine.close();
  });

  it('lets the stream in flight finish and answers a request that still arrives on its connection with 503 in the platform body', async () => {
    const { port } = test.app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const ended = once(socket, 'close');
    const request = (path: string, body: string) =>
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${test.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    // A stream the engine holds open; the server starts to close; then, on the same busy
    // connection (a pipelined request), a tokenizer call.
    socket.write(request('/paas/v4/chat/completions', streamBody));
    for (let waited = 0; engine.received() === 0; waited += 1) {
      if (waited > 200) assert.fail('the stream did not reach the engine');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const closed = test.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write(request('/paas/v4/tokenizer', JSON.stringify({ model: 'glm-4.7', messages: [{ role: 'user', content: 'Hi' }] })));
    await new Promise((resolve) => setTimeout(resolve, 50));
    engine.release();
    await closed;
    await ended;

    const second = received.slice(received.lastIndexOf('HTTP/1.1 '));
    assert.match(received, /^HTTP\/1\.1 200 /, 'the stream in flight was answered');
    assert.match(received, /data: \[DONE\]/, 'and finished');
    assert.match(second, /^HTTP\/1\.1 503 /);
    assert.match(second, /\r\nconnection: close\r\n/i);
    assert.match(second, /\r\nretry-after: 1\r\n/i);
    assert.match(second, /\r\nx-request-id: \S+\r\n/i);
    assert.doesNotMatch(second, /x-should-retry: false/i, 'clients may send it again');
    const body = JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4)) as unknown;
    assert.deepEqual(body, { error: { code: '503', message: 'This server is shutting down; send the request again.' } });
  });
});
