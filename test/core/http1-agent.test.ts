import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { after, describe, it } from 'node:test';
import { Http1Agent, type Http1Origin } from '../../src/core/http/http1-agent.ts';
import type { ResponseHead } from '../../src/core/http/http1-response-parser.ts';

/** A loopback server that answers each request with what `answer` returns for it, raw. */
interface RawServer {
  readonly origin: Http1Origin;
  readonly sockets: Socket[];
  /** Requests seen, in order, with the connection each came on. */
  readonly requests: { connection: number; text: string }[];
  close(): Promise<void>;
}

async function rawServer(answer: (text: string, socket: Socket) => string | undefined): Promise<RawServer> {
  const sockets: Socket[] = [];
  const requests: { connection: number; text: string }[] = [];
  const server: Server = createServer((socket) => {
    const connection = sockets.push(socket) - 1;
    let buffered = '';
    socket.on('data', (data: Buffer) => {
      buffered += data.toString('latin1');
      for (;;) {
        const headEnd = buffered.indexOf('\r\n\r\n');
        if (headEnd === -1) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, headEnd))?.[1] ?? 0);
        if (buffered.length < headEnd + 4 + length) return;
        const text = buffered.slice(0, headEnd + 4 + length);
        buffered = buffered.slice(text.length);
        requests.push({ connection, text });
        const reply = answer(text, socket);
        if (reply !== undefined) socket.write(reply);
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: { protocol: 'http:', hostname: '127.0.0.1', port: String(port), host: `127.0.0.1:${port}` },
    sockets,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A server that answers nothing by itself: each request's socket is kept for the test to answer. */
async function holdingServer(): Promise<{ server: RawServer; held: Socket[] }> {
  const held: Socket[] = [];
  const server = await rawServer((_text, socket) => {
    held.push(socket);
    return undefined;
  });
  return { server, held };
}

const ok = (body: string, extra = '') => `HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

interface Outcome {
  head: ResponseHead | undefined;
  body: string;
  error: Error | undefined;
}

function post(agent: Http1Agent, origin: Http1Origin, body = '{}', headers: Record<string, string> = { 'content-type': 'application/json' }) {
  let head: ResponseHead | undefined;
  const chunks: Buffer[] = [];
  let control!: ReturnType<Http1Agent['post']>;
  const outcome = new Promise<Outcome>((resolve) => {
    control = agent.post(origin, '/v1/chat/completions', headers, body, {
      onHead: (received) => (head = received),
      onBody: (chunk) => chunks.push(chunk),
      onEnd: () => resolve({ head, body: Buffer.concat(chunks).toString('utf8'), error: undefined }),
      onError: (error) => resolve({ head, body: Buffer.concat(chunks).toString('utf8'), error }),
    });
  });
  return { outcome, control };
}

const agents: Http1Agent[] = [];
function newAgent(connectionsPerOrigin = 16, idleTimeoutMs = 60_000): Http1Agent {
  const agent = new Http1Agent({ connectionsPerOrigin, idleTimeoutMs });
  agents.push(agent);
  return agent;
}
after(() => {
  for (const agent of agents) agent.close();
});

describe('Http1Agent', () => {
  it('writes the request as sent and carries sequential requests on one kept-alive connection', async () => {
    const server = await rawServer((text) => ok(`answer ${text.length}`));
    const agent = newAgent();
    for (let index = 0; index < 3; index += 1) {
      const { outcome } = post(agent, server.origin, `{"n":${index}}`, { 'content-type': 'application/json', authorization: 'Bearer sk-1' });
      const result = await outcome;
      assert.equal(result.error, undefined);
      assert.equal(result.head?.status, 200);
    }
    assert.equal(server.sockets.length, 1);
    assert.equal(
      server.requests[0]?.text,
      `POST /v1/chat/completions HTTP/1.1\r\nhost: ${server.origin.host}\r\ncontent-type: application/json\r\nauthorization: Bearer sk-1\r\ncontent-length: 7\r\n\r\n{"n":0}`,
    );
    await server.close();
  });

  it('opens at most connectionsPerOrigin connections; the other requests wait for one', async () => {
    const { server, held } = await holdingServer();
    const agent = newAgent(2);
    const calls = Array.from({ length: 5 }, () => post(agent, server.origin));
    while (server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(server.sockets.length, 2);
    assert.equal(server.requests.length, 2);
    // Each answer frees a connection for the next waiting request.
    while (server.requests.length < 5 || held.length > 0) {
      const socket = held.shift();
      if (socket === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      else socket.write(ok('done'));
    }
    const outcomes = await Promise.all(calls.map((call) => call.outcome));
    assert.deepEqual(
      outcomes.map((outcome) => outcome.body),
      ['done', 'done', 'done', 'done', 'done'],
    );
    assert.equal(server.sockets.length, 2);
    await server.close();
  });

  it('closes an idle connection that receives bytes no request asked for, and answers the next request on a new one', async () => {
    let served = 0;
    const server = await rawServer((_text, socket) => {
      served += 1;
      if (served === 1) setTimeout(() => socket.write(ok('poisoned answer')), 20);
      return ok(`answer ${served}`);
    });
    const agent = newAgent();
    assert.equal((await post(agent, server.origin).outcome).body, 'answer 1');
    await new Promise((resolve) => setTimeout(resolve, 80));
    const second = await post(agent, server.origin).outcome;
    assert.equal(second.body, 'answer 2');
    assert.equal(server.requests[1]?.connection, 1);
    await server.close();
  });

  it("does not reuse a connection past the server's Keep-Alive timeout (less a second), nor one it closed", async () => {
    const server = await rawServer((text) => (text.includes('"close"') ? ok('bye', 'connection: close\r\n') : ok('hi', 'keep-alive: timeout=1\r\n')));
    const agent = newAgent();
    await post(agent, server.origin).outcome;
    await post(agent, server.origin).outcome;
    assert.equal(server.sockets.length, 2);
    const closing = newAgent();
    const third = await rawServer((text) => (text.includes('"close"') ? ok('bye', 'connection: close\r\n') : ok('hi')));
    assert.equal((await post(closing, third.origin, '{"close":1}').outcome).body, 'bye');
    assert.equal((await post(closing, third.origin).outcome).body, 'hi');
    assert.equal(third.sockets.length, 2);
    await Promise.all([server.close(), third.close()]);
  });

  it('answers on a new connection when the server has closed the idle one', async () => {
    const server = await rawServer(() => ok('hi'));
    const agent = newAgent();
    await post(agent, server.origin).outcome;
    server.sockets[0]?.end();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const result = await post(agent, server.origin).outcome;
    assert.equal(result.error, undefined);
    assert.equal(result.body, 'hi');
    assert.equal(server.sockets.length, 2);
    await server.close();
  });

  it('aborting a request closes its connection (the server sees it) and ends it with the reason', async () => {
    const server = await rawServer(() => 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nfirst\r\n');
    const agent = newAgent();
    let closedByClient = false;
    const { outcome, control } = post(agent, server.origin);
    while (server.sockets.length === 0 || server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    server.sockets[0]?.on('close', () => (closedByClient = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    control.abort(new Error('the client left'));
    const result = await outcome;
    assert.equal(result.error?.message, 'the client left');
    assert.equal(result.body, 'first');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(closedByClient, true);
    await server.close();
  });

  it('a reader that pauses in the read that ends its answer leaves the connection reading for the next one', async () => {
    // Forty chunks in one write: the reader pauses after sixteen, and the same read ends the answer.
    const events = Array.from({ length: 40 }, (_unused, index) => `data: ${index}\n\n`);
    const streamed = `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${events.map((event) => `${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n`).join('')}0\r\n\r\n`;
    const server = await rawServer((text) => (text.includes('"stream"') ? streamed : ok('next answer')));
    const agent = newAgent();
    let received = 0;
    const first = await new Promise<string>((resolve) => {
      const control = agent.post(server.origin, '/v1/chat/completions', {}, '{"stream":true}', {
        onHead: () => undefined,
        onBody: () => {
          received += 1;
          if (received === 16) control.pause();
        },
        onEnd: () => resolve('ended'),
        onError: (error) => resolve(error.message),
      });
    });
    assert.equal(first, 'ended');
    const second = await Promise.race([post(agent, server.origin).outcome, new Promise<string>((resolve) => setTimeout(() => resolve('no answer within 2 s'), 2_000))]);
    assert.equal(typeof second === 'string' ? second : second.body, 'next answer');
    assert.equal(server.sockets.length, 1);
    await server.close();
  });

  it('a waiting request can be aborted without taking a connection', async () => {
    const { server, held } = await holdingServer();
    const agent = newAgent(1);
    const first = post(agent, server.origin);
    const second = post(agent, server.origin);
    second.control.abort(new Error('gave up waiting'));
    assert.equal((await second.outcome).error?.message, 'gave up waiting');
    while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    held[0]?.write(ok('first'));
    assert.equal((await first.outcome).body, 'first');
    assert.equal(server.requests.length, 1);
    await server.close();
  });

  it('reports a refused connection, an answer that is not HTTP and a connection closed mid-answer', async () => {
    const agent = newAgent();
    const closedPort = await rawServer(() => undefined);
    await closedPort.close();
    assert.match((await post(agent, closedPort.origin).outcome).error?.message ?? '', /ECONNREFUSED/);

    const notHttp = await rawServer(() => 'SSH-2.0-OpenSSH_9.2\r\n\r\n');
    assert.match((await post(agent, notHttp.origin).outcome).error?.message ?? '', /not an HTTP\/1\.1 status line/);

    const cut = await rawServer((_text, socket) => {
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
      return undefined;
    });
    const result = await post(agent, cut.origin).outcome;
    assert.match(result.error?.message ?? '', /closed before the answer was complete/);
    assert.equal(result.body, 'partial');
    await Promise.all([notHttp.close(), cut.close()]);
  });

  it('refuses a header value with a line break before anything is sent', async () => {
    const server = await rawServer(() => ok('hi'));
    const result = await post(newAgent(), server.origin, '{}', { authorization: 'Bearer a\r\nx-injected: 1' }).outcome;
    assert.match(result.error?.message ?? '', /invalid authorization header/);
    assert.equal(server.sockets.length, 0);
    await server.close();
  });

  it('speaks TLS to https origins and verifies the certificate', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'http1-agent-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', join(directory, 'key.pem'), '-out', join(directory, 'cert.pem')], { stdio: 'ignore' });
    const server = createTlsServer({ key: readFileSync(join(directory, 'key.pem')), cert: readFileSync(join(directory, 'cert.pem')) }, (socket) => {
      socket.on('data', () => socket.write(ok('over tls')));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const origin = { protocol: 'https:', hostname: '127.0.0.1', port: String(port), host: `127.0.0.1:${port}` };
    // A self-signed certificate is not trusted: the connection fails before any request is sent.
    assert.match((await post(newAgent(), origin).outcome).error?.message ?? '', /self-signed|certificate/i);
    await new Promise((resolve) => server.close(resolve));
    rmSync(directory, { recursive: true, force: true });
  });
});
