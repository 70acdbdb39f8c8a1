import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A real HTTP server on 127.0.0.1 that answers like an OpenAI-compatible engine (vLLM's shapes):
 * each test scripts the replies, and the server records every request and whether the client
 * closed the connection before a reply was complete (to prove an abort reached the engine).
 *
 *   const engine = await startFakeOpenAiServer();
 *   engine.enqueue(sseReply(vllmReasoningStream({ reasoning: ['Hm'], content: ['Hi'] })));
 *   // ... call something with baseUrl engine.baseUrl ...
 *   engine.requests[0]?.body  // the JSON the client sent
 *   await engine.close();
 */

/** One SSE event: an object is sent as `data: <json>\n\n`; a string is written exactly as given. */
export type SseEvent = object | string;

export type FakeReply =
  /** A JSON answer (status 200 unless given), after `delayMs` when given (an engine still working). */
  | { readonly kind: 'json'; readonly status?: number; readonly body: unknown; readonly headers?: Readonly<Record<string, string>>; readonly delayMs?: number }
  /** A non-JSON answer, e.g. a proxy's HTML error page. */
  | { readonly kind: 'text'; readonly status: number; readonly body: string; readonly contentType?: string }
  /**
   * An event stream: `delayMs` before each event (a slow stream), `[DONE]` at the end unless
   * `done` is false, and `cutAfter` N events: the socket is destroyed after the N-th event.
   */
  | {
      readonly kind: 'sse';
      readonly events: readonly SseEvent[];
      readonly delayMs?: number;
      readonly done?: boolean;
      readonly cutAfter?: number;
    }
  /** Headers never come: for timeouts and aborts before the answer. */
  | { readonly kind: 'hang' }
  /** The socket is destroyed before any answer (a crashed engine). */
  | { readonly kind: 'reset' };

export type ReplyScript = FakeReply | ((request: RecordedRequest) => FakeReply);

export interface RecordedRequest {
  readonly method: string;
  /** Path with query, e.g. `/v1/chat/completions`. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body (a string when it was not JSON). */
  readonly body: Record<string, unknown>;
  readonly rawBody: string;
  readonly receivedAt: number;
  /** When the client closed the connection before the reply was complete; undefined otherwise. */
  readonly clientClosedAt: number | undefined;
  /** Resolves (with the time) when the client closes the connection before the reply is complete. */
  readonly clientClosed: Promise<number>;
}

export interface FakeOpenAiServer {
  /** `http://127.0.0.1:<port>/v1`, the form of an engine's baseUrl. */
  readonly baseUrl: string;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Every request received, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** Replies for the next requests, in order; used before the default. */
  enqueue(...replies: ReplyScript[]): void;
  /** The reply for any request when the queue is empty (a function can route by path). */
  setDefault(reply: ReplyScript | undefined): void;
  /** Forgets recorded requests, queued replies and the default. */
  reset(): void;
  /** Resolves when the client of request `index` closed its connection early; rejects after `withinMs`. */
  waitForClientClose(index: number, withinMs: number): Promise<number>;
  /** Stops listening and cuts every open connection, as a dying engine would; `restart` brings it back on the same port. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

class Recorded implements RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
  readonly rawBody: string;
  readonly receivedAt = Date.now();
  clientClosedAt: number | undefined;
  readonly clientClosed: Promise<number>;
  markClientClosed: (at: number) => void = () => undefined;

  constructor(message: IncomingMessage, rawBody: string) {
    this.method = message.method ?? '';
    this.path = message.url ?? '';
    this.headers = message.headers;
    this.rawBody = rawBody;
    this.body = parseBody(rawBody);
    this.clientClosed = new Promise((resolve) => {
      this.markClientClosed = (at) => {
        this.clientClosedAt = at;
        resolve(at);
      };
    });
  }
}

/**
 * `keepAliveTimeoutMs`: how long an idle kept-alive connection stays open (Node's default, 5 s,
 * when left out, as many real engines do).
 */
export async function startFakeOpenAiServer(options: { readonly keepAliveTimeoutMs?: number } = {}): Promise<FakeOpenAiServer> {
  const requests: Recorded[] = [];
  let queue: ReplyScript[] = [];
  let fallback: ReplyScript | undefined;
  const server = createServer((message, response) => {
    // A client that goes away while sending its body is not the server's failure.
    handle(message, response).catch(() => message.socket.destroy());
  });

  async function handle(message: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of message) chunks.push(chunk as Buffer);
    const recorded = new Recorded(message, Buffer.concat(chunks).toString('utf8'));
    requests.push(recorded);
    let cutByServer = false;
    response.on('close', () => {
      if (!response.writableFinished && !cutByServer) recorded.markClientClosed(Date.now());
    });
    const script = queue.shift() ?? fallback;
    const reply = typeof script === 'function' ? script(recorded) : script;
    if (reply === undefined) {
      sendJson(response, 500, { object: 'error', message: `fake engine: no reply scripted for ${recorded.method} ${recorded.path}`, code: 500 });
      return;
    }
    switch (reply.kind) {
      case 'json':
        if (reply.delayMs !== undefined) await sleep(reply.delayMs);
        if (response.destroyed) return;
        sendJson(response, reply.status ?? 200, reply.body, reply.headers);
        return;
      case 'text':
        response.writeHead(reply.status, { 'content-type': reply.contentType ?? 'text/plain' });
        response.end(reply.body);
        return;
      case 'hang':
        return;
      case 'reset':
        cutByServer = true;
        message.socket.destroy();
        return;
      case 'sse': {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        response.flushHeaders();
        let sent = 0;
        for (const event of reply.events) {
          if (reply.delayMs !== undefined) await sleep(reply.delayMs);
          if (response.destroyed) return;
          response.write(typeof event === 'string' ? event : `data: ${JSON.stringify(event)}\n\n`);
          sent += 1;
          if (reply.cutAfter !== undefined && sent >= reply.cutAfter) {
            cutByServer = true;
            // Let the written events leave before the socket goes, as a crashing engine's would.
            await sleep(20);
            message.socket.destroy();
            return;
          }
        }
        if (reply.done !== false) response.write('data: [DONE]\n\n');
        response.end();
        return;
      }
    }
  }

  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    requests,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    setDefault: (reply) => {
      fallback = reply;
    },
    reset: () => {
      requests.length = 0;
      queue = [];
      fallback = undefined;
    },
    waitForClientClose: async (index, withinMs) => {
      const request = requests[index];
      if (request === undefined) throw new Error(`fake engine: no request #${index} was received`);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`fake engine: the client kept request #${index} open for more than ${withinMs} ms`)), withinMs);
      });
      try {
        return await Promise.race([request.clientClosed, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    stop: () => stop(),
    restart: async () => {
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
    close: () => (server.listening ? stop() : Promise.resolve()),
  };

  async function stop(): Promise<void> {
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  }
}

function parseBody(rawBody: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(rawBody);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : { value: parsed };
  } catch {
    return { text: rawBody };
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

// ---- Reply builders -------------------------------------------------------------------------

export function jsonReply(body: unknown, status = 200): FakeReply {
  return { kind: 'json', status, body };
}

export function sseReply(events: readonly SseEvent[], options: { delayMs?: number; done?: boolean; cutAfter?: number } = {}): FakeReply {
  return { kind: 'sse', events, ...options };
}

/** vLLM's error answer: `{"object":"error","message","type","param","code"}` with the same HTTP status. */
export function vllmError(status: number, message: string, type = 'BadRequestError'): FakeReply {
  return jsonReply({ object: 'error', message, type, param: null, code: status }, status);
}

// ---- vLLM-shaped bodies ---------------------------------------------------------------------

const fakeModel = 'fake/model';
const created = 1_700_000_000;

export interface FakeUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens?: number;
}

export interface FakeToolCall {
  readonly id: string;
  readonly name: string;
  /** A string is sent as it is; an object is sent as an object (as some engines do). */
  readonly arguments: string | object;
}

export function vllmUsage(usage: FakeUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...(usage.cachedTokens === undefined ? {} : { prompt_tokens_details: { cached_tokens: usage.cachedTokens } }),
  };
}

/** A non-streamed chat completion. */
export function vllmCompletion(answer: {
  content?: string | null;
  reasoning?: string;
  toolCalls?: readonly FakeToolCall[];
  finishReason?: string;
  usage?: FakeUsage;
}): Record<string, unknown> {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created,
    model: fakeModel,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.content === undefined ? null : answer.content,
          ...(answer.reasoning === undefined ? {} : { reasoning_content: answer.reasoning }),
          tool_calls: (answer.toolCalls ?? []).map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
        },
        logprobs: null,
        finish_reason: answer.finishReason ?? ((answer.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    usage: vllmUsage(answer.usage ?? { promptTokens: 10, completionTokens: 5, cachedTokens: 0 }),
  };
}

/** One stream chunk with a delta for choice 0. */
export function vllmChunk(delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created,
    model: fakeModel,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/** The last chunk vLLM sends with `stream_options.include_usage`: no choices, only usage. */
export function vllmUsageChunk(usage: FakeUsage): Record<string, unknown> {
  return { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created, model: fakeModel, choices: [], usage: vllmUsage(usage) };
}

/** Role chunk, reasoning deltas, content deltas, the finish chunk, then the usage chunk when given. */
export function vllmReasoningStream(answer: {
  reasoning?: readonly string[];
  content?: readonly string[];
  finishReason?: string;
  usage?: FakeUsage;
}): Record<string, unknown>[] {
  return [
    vllmChunk({ role: 'assistant', content: '' }),
    ...(answer.reasoning ?? []).map((text) => vllmChunk({ reasoning_content: text })),
    ...(answer.content ?? []).map((text) => vllmChunk({ content: text })),
    vllmChunk({}, answer.finishReason ?? 'stop'),
    ...(answer.usage === undefined ? [] : [vllmUsageChunk(answer.usage)]),
  ];
}

/**
 * Tool calls as vLLM streams them: per call a first delta with id, type, name and "" arguments,
 * then the argument fragments; the finish chunk says tool_calls.
 */
export function vllmToolCallStream(
  calls: readonly { id: string; name: string; fragments: readonly string[] }[],
  options: { usage?: FakeUsage } = {},
): Record<string, unknown>[] {
  return [
    vllmChunk({ role: 'assistant', content: '' }),
    ...calls.flatMap((call, index) => [
      vllmChunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }),
      ...call.fragments.map((fragment) => vllmChunk({ tool_calls: [{ index, function: { arguments: fragment } }] })),
    ]),
    vllmChunk({}, 'tool_calls'),
    ...(options.usage === undefined ? [] : [vllmUsageChunk(options.usage)]),
  ];
}
