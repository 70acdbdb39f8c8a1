import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { ChatCompletionsEngine, maxEventsWithoutProgress } from '../../src/backends/engine-http/chat-completions-engine.ts';
import { engineHttpError } from '../../src/backends/engine-http/engine-http-error.ts';
import { getJson, postForEvents, postJson, type EngineConnection } from '../../src/backends/engine-http/engine-request.ts';
import type { ChatRequest } from '../../src/core/chat/chat-types.ts';
import { EngineFailure } from '../../src/core/errors/engine-failure.ts';
import { assertEngineFailure, rejection } from '../helpers/api-error-assertions.ts';
import { chatRequest as baseChatRequest } from '../helpers/chat-request.ts';

/** One request as the raw server read it, with the connection it came on. */
interface SeenRequest {
  readonly connection: number;
  readonly path: string;
  readonly head: string;
  readonly body: string;
}

interface RawEngine {
  readonly url: string;
  readonly requests: SeenRequest[];
  /** Connections accepted, open or closed. */
  readonly sockets: Socket[];
  close(): Promise<void>;
}

/**
 * A loopback engine over node:net that writes whatever `answer` decides, byte for byte: the
 * misbehaviours a Node HTTP server would not let a test produce (closing after an answer whose
 * headers say keep-alive, bytes after an answer, a body longer or shorter than its Content-Length).
 */
async function rawEngine(answer: (request: SeenRequest, socket: Socket) => void): Promise<RawEngine> {
  const requests: SeenRequest[] = [];
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    // Without Nagle's delay, as Node's HTTP server and uvicorn send: bytes written after an answer
    // then arrive at once, while their connection is idle. Held back until the ACK that comes with
    // the next request, they would arrive after it was written, as its answer; HTTP/1.1 gives no
    // client a way to tell those apart, so the tests of stray bytes send them at once.
    socket.setNoDelay(true);
    const connection = sockets.push(socket) - 1;
    let buffered = Buffer.alloc(0);
    socket.on('error', () => undefined);
    socket.on('data', (data: Buffer) => {
      buffered = Buffer.concat([buffered, data]);
      for (;;) {
        const headEnd = buffered.indexOf('\r\n\r\n');
        if (headEnd === -1) return;
        const head = buffered.subarray(0, headEnd).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < headEnd + 4 + length) return;
        const body = buffered.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
        buffered = buffered.subarray(headEnd + 4 + length);
        const request = { connection, path: head.split(' ')[1] ?? '', head, body };
        requests.push(request);
        answer(request, socket);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    sockets,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const json = (body: string, extraHeaders = '') =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n${extraHeaders}\r\n${body}`;

const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

/** A streamed chat answer as llama.cpp's server sends it: chunked, keep-alive in its headers. */
function sseAnswer(tag: string): string {
  const events = [
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: tag } }] })}\n\n`,
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
    'data: [DONE]\n\n',
  ];
  return `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: keep-alive\r\nkeep-alive: timeout=5, max=100\r\ntransfer-encoding: chunked\r\n\r\n${events.map(chunk).join('')}0\r\n\r\n`;
}

const sseHead = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: keep-alive\r\n\r\n';

/** The connection settings of a model served by the raw engine (URLs are given per call). */
function engineSettings(overrides: Partial<EngineConnection> = {}): EngineConnection {
  return { modelName: 'glm-raw', apiKey: undefined, timeoutMs: 10_000, httpError: (status, text) => engineHttpError('glm-raw', status, text), ...overrides };
}

async function streamText(engine: EngineConnection, url: string, body: unknown = {}): Promise<string> {
  let text = '';
  for await (const data of postForEvents(engine, { url, body, signal: new AbortController().signal })) {
    if (data === '[DONE]') break;
    const delta = (JSON.parse(data) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content;
    text += delta ?? '';
  }
  return text;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Writes `total` bytes of `unit` while the socket takes them, until the peer goes away. */
function pour(socket: Socket, unit: Buffer, total: number): void {
  let written = 0;
  const write = () => {
    while (written < total && !socket.destroyed) {
      written += unit.length;
      if (!socket.write(unit)) {
        socket.once('drain', write);
        return;
      }
    }
  };
  write();
}

describe('engine exchange: an engine that closes the connection after each streamed answer', () => {
  // llama.cpp's server closes the connection after a streamed answer although its headers say
  // keep-alive, at once or a moment later; a request written on that connection as it closes
  // fails before any byte of its answer and must be sent again, never surface to the caller.
  const closingConnections = new WeakSet<Socket>();
  const closing = rawEngine((request, socket) => {
    if (closingConnections.has(socket)) return; // what arrives after the answer is never read
    closingConnections.add(socket);
    const { tag, closeAfterMs } = JSON.parse(request.body) as { tag: string; closeAfterMs: number };
    socket.write(sseAnswer(tag), () => {
      if (closeAfterMs === 0) socket.destroy();
      else setTimeout(() => socket.destroy(), closeAfterMs);
    });
  });
  after(async () => (await closing).close());

  for (const closeAfterMs of [0, 3]) {
    for (const concurrency of [1, 8]) {
      it(`answers 200 back-to-back streams at concurrency ${concurrency}, closed ${closeAfterMs} ms after each, every one with its own answer`, async () => {
        const engine = await closing;
        const connection = engineSettings();
        let next = 0;
        const failures: string[] = [];
        const worker = async () => {
          while (next < 200) {
            const tag = `c${concurrency}-${next++}`;
            try {
              assert.equal(await streamText(connection, `${engine.url}/v1/chat/completions`, { tag, closeAfterMs }), tag);
            } catch (error) {
              failures.push(messageOf(error));
            }
          }
        };
        await Promise.all(Array.from({ length: concurrency }, worker));
        assert.deepEqual(failures, []);
      });
    }
  }
});

describe('engine exchange: connections kept alive after the engine closed one', () => {
  it('after an answer that closes its connection (as llama.cpp does after 100 requests), the next calls reuse their new connections', async () => {
    // The first answer says `connection: close` and its connection ends; every later one keeps its connection.
    const engine = await rawEngine((_request, socket) => {
      const keepsConnection = engine.requests.length > 1;
      const answer = json(JSON.stringify({ n: engine.requests.length }), keepsConnection ? 'keep-alive: timeout=600\r\n' : '');
      socket.write(keepsConnection ? answer : answer.replace('connection: keep-alive', 'connection: close'));
      if (!keepsConnection) socket.end();
    });
    try {
      const connection = engineSettings();
      for (let call = 1; call <= 12; call += 1) {
        assert.deepEqual(await postJson(connection, { url: `${engine.url}/v1/chat/completions`, body: {}, signal: new AbortController().signal }), { n: call });
      }
      // undici may open a second connection while the first is still marked busy; both are then kept.
      const later = new Set(engine.requests.slice(1).map((request) => request.connection));
      assert.ok(later.size <= 2, `the 11 calls after the close went over ${later.size} connections`);
    } finally {
      await engine.close();
    }
  });
});

describe('engine exchange: bytes an engine sends beyond its answer', () => {
  const stray = '{"choices":[{"message":{"content":"STRAY-BYTES-FOR-SOMEONE-ELSE"}}]}';
  const strayAnswer = `HTTP/1.1 200 OK\r\ncontent-length: ${stray.length}\r\n\r\n${stray}`;
  const own = (request: SeenRequest) => JSON.stringify({ choices: [{ message: { content: `answer to ${JSON.parse(request.body).tag}` } }] });
  let mode: 'stray-response' | 'stray-later' | 'longer-body' | 'plain' = 'plain';
  const engine = rawEngine((request, socket) => {
    const body = own(request);
    if (mode === 'stray-response') {
      socket.write(json(body) + strayAnswer);
    } else if (mode === 'stray-later') {
      socket.write(json(body));
      setImmediate(() => socket.write(strayAnswer));
    } else if (mode === 'longer-body') {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}${strayAnswer}`);
    } else {
      socket.write(json(body));
    }
    mode = 'plain';
  });
  after(async () => (await engine).close());

  for (const misbehaviour of ['stray-response', 'stray-later', 'longer-body'] as const) {
    it(`${misbehaviour}: the next caller gets its own answer, and no message quotes the stray bytes`, async () => {
      const { url } = await engine;
      const connection = engineSettings();
      const call = (tag: string) => postJson(connection, { url: `${url}/v1/chat/completions`, body: { tag }, signal: new AbortController().signal });
      mode = misbehaviour;
      const outcomes: string[] = [];
      for (const tag of ['first', 'second', 'third']) {
        try {
          outcomes.push(JSON.stringify(await call(tag)));
        } catch (error) {
          outcomes.push(`error: ${messageOf(error)}`);
        }
        // The next call starts at once: the connection it gets must not carry the stray bytes.
      }
      assert.ok(
        outcomes.every((outcome) => !outcome.includes('STRAY')),
        outcomes.join('\n'),
      );
      assert.ok(outcomes[0]?.includes('answer to first') || outcomes[0]?.startsWith('error:'), outcomes[0]);
      assert.ok(outcomes[1]?.includes('answer to second'), outcomes[1]);
      assert.ok(outcomes[2]?.includes('answer to third'), outcomes[2]);
    });
  }

  it('bytes that arrive on an idle connection while others are kept: that connection is closed, and every later caller on the others gets its own answer', async () => {
    const { url, requests } = await engine;
    const connection = engineSettings();
    const call = (tag: string) => postJson(connection, { url: `${url}/v1/chat/completions`, body: { tag }, signal: new AbortController().signal });
    // Three kept connections in the pool, then one of them receives a stray answer while idle.
    await Promise.all(['a', 'b', 'c'].map((tag) => call(tag)));
    mode = 'stray-later';
    const first = JSON.stringify(await call('first'));
    const strayConnection = requests.at(-1)?.connection;
    await new Promise((resolve) => setTimeout(resolve, 30));
    const later = await Promise.all(['second', 'third', 'fourth'].map(async (tag) => [tag, JSON.stringify(await call(tag))] as const));
    assert.ok(first.includes('answer to first'), first);
    for (const [tag, outcome] of later) assert.ok(outcome.includes(`answer to ${tag}`), `${tag}: ${outcome}`);
    assert.ok(
      requests.slice(-3).every((request) => request.connection !== strayConnection),
      'the connection that carried stray bytes is not used again',
    );
  });
});

describe('engine exchange: answers cut short', () => {
  it('a body shorter than its Content-Length fails that call cleanly, and is not sent again', async () => {
    const engine = await rawEngine((request, socket) => {
      if (JSON.parse(request.body).tag === 'short') socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"choices":', () => socket.destroy());
      else socket.write(json('{"ok":true}'));
    });
    try {
      const connection = engineSettings();
      const call = (tag: string) => postJson(connection, { url: `${engine.url}/v1/chat/completions`, body: { tag }, signal: new AbortController().signal });
      const error = await rejection(call('short'));
      assertEngineFailure(error, 'unreachable', "'glm-raw'");
      assert.ok(!messageOf(error).includes('choices'), messageOf(error));
      assert.equal(engine.requests.length, 1, 'an answer had begun: the request is not sent again');
      assert.deepEqual(await call('next'), { ok: true });
    } finally {
      await engine.close();
    }
  });

  it('a new connection the engine closes without answering is not sent again', async () => {
    const engine = await rawEngine((_request, socket) => socket.destroy());
    try {
      const error = await rejection(postJson(engineSettings(), { url: `${engine.url}/v1/chat/completions`, body: {}, signal: new AbortController().signal }));
      assertEngineFailure(error, 'unreachable', "'glm-raw'");
      assert.equal(engine.requests.length, 1);
    } finally {
      await engine.close();
    }
  });
});

describe('engine exchange: caps on what an engine sends', () => {
  it('an answer that declares more than maxResponseBytes fails at once with 1230, naming the cap', async () => {
    const engine = await rawEngine((_request, socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 104857600\r\n\r\n{"choices":');
    });
    try {
      const started = performance.now();
      const error = await rejection(postJson(engineSettings(), { url: `${engine.url}/v1/chat/completions`, body: {}, signal: new AbortController().signal }));
      assertEngineFailure(error, 'too-large', "'glm-raw'", 'maxResponseBytes', '32 MiB');
      assert.ok(performance.now() - started < 2_000);
    } finally {
      await engine.close();
    }
  });

  it('a task poll (GET) is capped as a call is, and sends no body', async () => {
    const engine = await rawEngine((request, socket) => {
      if (request.path === '/async-result/big') socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 104857600\r\n\r\n{');
      else socket.write(json('{"task_status":"PROCESSING"}'));
    });
    try {
      const connection = engineSettings();
      assert.deepEqual(await getJson(connection, { url: `${engine.url}/async-result/small`, signal: new AbortController().signal }), {
        task_status: 'PROCESSING',
      });
      assert.match(engine.requests[0]?.head ?? '', /^GET \/async-result\/small HTTP\/1\.1/);
      assert.doesNotMatch(engine.requests[0]?.head ?? '', /content-type/i);
      assertEngineFailure(
        await rejection(getJson(connection, { url: `${engine.url}/async-result/big`, signal: new AbortController().signal })),
        'too-large',
        'maxResponseBytes',
      );
    } finally {
      await engine.close();
    }
  });

  it('a 100 MB chunked answer fails with 1230 at the cap, memory bounded, its connection closed', async () => {
    const megabyte = Buffer.alloc(1024 * 1024, 'a');
    const unit = Buffer.concat([Buffer.from(`${megabyte.length.toString(16)}\r\n`), megabyte, Buffer.from('\r\n')]);
    const engine = await rawEngine((_request, socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
      pour(socket, unit, 100 * unit.length);
    });
    try {
      global.gc?.();
      const before = process.memoryUsage().rss;
      const error = await rejection(postJson(engineSettings(), { url: `${engine.url}/v1/chat/completions`, body: {}, signal: new AbortController().signal }));
      const growth = process.memoryUsage().rss - before;
      assertEngineFailure(error, 'too-large', 'maxResponseBytes');
      assert.ok(growth < 150 * 1024 * 1024, `RSS grew by ${Math.round(growth / 1024 / 1024)} MB`);
      const closed = (socket: Socket | undefined) => socket === undefined || socket.destroyed || socket.readableEnded;
      await waitFor(() => closed(engine.sockets[0]));
      // undici opens a new connection for the pool after a request it aborted; idle, it closes after keepAliveTimeout (4 s).
      await waitFor(() => engine.sockets.every(closed), 10_000);
    } finally {
      await engine.close();
    }
  });

  it('a per-model maxResponseBytes caps an error body too', async () => {
    const engine = await rawEngine((_request, socket) => {
      const body = JSON.stringify({ error: { message: 'e'.repeat(10_000) } });
      socket.write(`HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    });
    try {
      const error = await rejection(
        postJson(engineSettings({ maxResponseBytes: 4096 }), { url: `${engine.url}/v1/chat/completions`, body: {}, signal: new AbortController().signal }),
      );
      assertEngineFailure(error, 'too-large', 'HTTP 500', '4096 bytes', 'maxResponseBytes');
    } finally {
      await engine.close();
    }
  });

  it('a 50 MB server-sent event fails with 1230 within 2 s while another call on the engine is answered', async () => {
    const line = Buffer.alloc(1024 * 1024, 'x');
    const engine = await rawEngine((request, socket) => {
      if (request.path === '/huge') {
        socket.write(`${sseHead}data: `);
        pour(socket, line, 50 * line.length);
        return;
      }
      // A slow, ordinary stream on another connection: one event every 20 ms.
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
      let sent = 0;
      const timer = setInterval(() => {
        if (socket.destroyed) return clearInterval(timer);
        if (sent === 20) {
          clearInterval(timer);
          socket.write(`${chunk('data: [DONE]\n\n')}0\r\n\r\n`);
          return;
        }
        sent += 1;
        socket.write(chunk(`data: ${JSON.stringify({ choices: [{ delta: { content: `part ${sent}` } }] })}\n\n`));
      }, 20);
    });
    try {
      const connection = engineSettings();
      const ordinary = (async () => {
        let events = 0;
        for await (const data of postForEvents(connection, { url: `${engine.url}/ordinary`, body: {}, signal: new AbortController().signal })) {
          if (data === '[DONE]') break;
          events += 1;
        }
        return events;
      })();
      const started = performance.now();
      const error = await rejection(
        (async () => {
          for await (const data of postForEvents(connection, { url: `${engine.url}/huge`, body: {}, signal: new AbortController().signal }))
            assert.fail(`an event of ${data.length} characters`);
        })(),
      );
      const elapsed = performance.now() - started;
      assertEngineFailure(error, 'too-large', 'one stream event', '8 MiB');
      assert.ok(elapsed < 2_000, `took ${Math.round(elapsed)} ms`);
      assert.equal(await ordinary, 20);
    } finally {
      await engine.close();
    }
  });

  it(`${maxEventsWithoutProgress} stream events in a row without content end the call with 1230`, async () => {
    const empty = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {} }] })}\n\n`;
    const engine = await rawEngine((_request, socket) => {
      socket.write(sseHead + `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Hi' } }] })}\n\n`);
      socket.write(empty.repeat(maxEventsWithoutProgress + 5));
    });
    try {
      const chat = new ChatCompletionsEngine(engineSettings(), `${engine.url}/v1/chat/completions`, () => ({}));
      const parts: unknown[] = [];
      const error = await rejection(
        (async () => {
          for await (const batch of chat.stream(chatRequest())) parts.push(...batch);
        })(),
      );
      assertEngineFailure(error, 'too-large', 'without content', `${maxEventsWithoutProgress} events`);
      assert.deepEqual(parts, [{ type: 'text', text: 'Hi' }]);
    } finally {
      await engine.close();
    }
  });
});

describe('engine exchange: error answers and aborts', () => {
  it("passes the engine's own error.message on, on one line and shortened", async () => {
    const message = `slot unavailable\r\nInjected: header ${'m'.repeat(2_000)}`;
    const engine = await rawEngine((_request, socket) => {
      const body = JSON.stringify({ error: { code: 503, message, type: 'unavailable_error' } });
      socket.write(`HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
    try {
      const error = await rejection(postJson(engineSettings(), { url: `${engine.url}/v1/chat/completions`, body: {}, signal: new AbortController().signal }));
      assertEngineFailure(error, 'unavailable', 'HTTP 503', 'slot unavailable Injected: header mmm');
      assert.ok(error instanceof EngineFailure && !/[\r\n]/.test(error.message) && !error.message.includes('unavailable_error'), messageOf(error));
      assert.ok(messageOf(error).length < 500, `${messageOf(error).length} characters`);
    } finally {
      await engine.close();
    }
  });

  it("the client's abort closes the engine's connection, waiting for the answer or reading it", async () => {
    const engine = await rawEngine((request, socket) => {
      if (request.path === '/streaming') socket.write(`${sseHead}data: {"choices":[{"delta":{"content":"a"}}]}\n\n`);
    });
    try {
      const connection = engineSettings();
      const waiting = new AbortController();
      const pending = rejection(postJson(connection, { url: `${engine.url}/waiting`, body: {}, signal: waiting.signal }));
      await waitFor(() => engine.requests.length === 1);
      waiting.abort(new Error('the client closed the connection'));
      assert.equal(messageOf(await pending), 'the client closed the connection');
      await waitFor(() => engine.sockets[0]?.readableEnded === true || engine.sockets[0]?.destroyed === true);

      const reading = new AbortController();
      const events = postForEvents(connection, { url: `${engine.url}/streaming`, body: {}, signal: reading.signal });
      assert.equal((await events.next()).value, '{"choices":[{"delta":{"content":"a"}}]}');
      const next = events.next();
      reading.abort(new Error('the client left'));
      assert.equal(messageOf(await rejection(next)), 'the client left');
      const socket = engine.sockets[engine.requests[1]?.connection ?? -1];
      await waitFor(() => socket?.readableEnded === true || socket?.destroyed === true);
    } finally {
      await engine.close();
    }
  });

  it('sends only the headers the call owns, never ones inherited from Object.prototype', async () => {
    const engine = await rawEngine((_request, socket) => socket.write(json('{}')));
    const prototype = Object.prototype as Record<string, unknown>;
    prototype['x-polluted'] = 'yes';
    try {
      await postJson(engineSettings({ apiKey: 'sk-test' }), { url: `${engine.url}/v1/chat/completions`, body: {}, signal: new AbortController().signal });
      const head = engine.requests[0]?.head.toLowerCase() ?? '';
      assert.ok(head.includes('authorization: bearer sk-test'), head);
      assert.ok(!head.includes('x-polluted'), head);
    } finally {
      delete prototype['x-polluted'];
      await engine.close();
    }
  });
});

function chatRequest(): ChatRequest {
  return baseChatRequest({ model: 'glm-raw', maxTokensLimit: 98304 });
}

async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) assert.fail('the condition did not come true in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
