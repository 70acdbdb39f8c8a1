import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake engine received in one call, parsed from the real multipart body. */
interface ReceivedTranscription {
  readonly path: string;
  readonly authorization: string | undefined;
  /** Text fields; repeated fields keep every value in order. */
  readonly fields: Record<string, string[]>;
  readonly file: { readonly name: string; readonly type: string; readonly bytes: Buffer } | undefined;
}

export interface FakeOpenAiTranscriptionServer {
  readonly baseUrl: string;
  readonly received: ReceivedTranscription[];
  /** Answer the next calls with this status and body (default 200 with {text}). */
  answerWith(status: number, body: unknown): void;
  /** Answer the next calls with these server-sent events (each sent as `data: <json>`), then `[DONE]`. */
  answerWithEvents(events: readonly object[]): void;
  /** Hold every answer this long (for timeouts and aborts). */
  delayAnswers(milliseconds: number): void;
  reset(): void;
  close(): Promise<void>;
}

/** A loopback OpenAI-compatible `POST /v1/audio/transcriptions` that answers the text it is set to. */
export async function startFakeOpenAiTranscriptionServer(text: string): Promise<FakeOpenAiTranscriptionServer> {
  const received: ReceivedTranscription[] = [];
  let answer: { status: number; body: unknown } = { status: 200, body: { text } };
  let events: readonly object[] | undefined;
  let delay = 0;
  const server = createServer((request, response) => {
    void handle(request, response);
  });
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method === 'GET') {
      // The platform's health probe (GET /models) after a failed call: an OpenAI-style list.
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [] }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': request.headers['content-type'] ?? '' } }).formData();
    const fields: Record<string, string[]> = {};
    let file: ReceivedTranscription['file'];
    for (const [name, value] of form.entries()) {
      if (typeof value === 'string') (fields[name] ??= []).push(value);
      else file = { name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
    }
    received.push({ path: request.url ?? '', authorization: request.headers.authorization, fields, file });
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    if (response.destroyed) return;
    if (events !== undefined) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`${events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')}data: [DONE]\n\n`);
      return;
    }
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer.body));
  }
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    answerWith(status, body) {
      answer = { status, body };
    },
    answerWithEvents(frames) {
      events = frames;
    },
    delayAnswers(milliseconds) {
      delay = milliseconds;
    },
    reset() {
      received.length = 0;
      answer = { status: 200, body: { text } };
      events = undefined;
      delay = 0;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
