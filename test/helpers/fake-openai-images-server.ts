import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 that answers `POST /v1/images/generations` as OpenAI's image
 * API does (`{created, data: [{b64_json}]}` or `{created, data: [{url}]}`, errors as
 * `{"error": {message, type, param, code}}`), and serves the files its URLs name under /files/.
 */
type ImagesReply =
  | { readonly kind: 'b64'; readonly images: readonly Uint8Array[] }
  /** data[].url on this server (the files are served at those URLs). */
  | { readonly kind: 'url'; readonly images: readonly Uint8Array[] }
  /** data[].url exactly as given (another host). */
  | { readonly kind: 'foreign-url'; readonly urls: readonly string[] }
  /** data[].url on this server, which answers it with a 302 to `location`. */
  | { readonly kind: 'redirect-url'; readonly location: string }
  | { readonly kind: 'error'; readonly status: number; readonly message: string; readonly code?: string; readonly param?: string }
  /** Headers never come. */
  | { readonly kind: 'hang' };

interface ImagesRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

export interface FakeOpenAiImagesServer {
  /** `http://127.0.0.1:<port>/v1`. */
  readonly baseUrl: string;
  readonly requests: readonly ImagesRequest[];
  /** GET /files/... requests received. */
  readonly downloads: readonly string[];
  reply(...replies: ImagesReply[]): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeOpenAiImagesServer(): Promise<FakeOpenAiImagesServer> {
  const requests: ImagesRequest[] = [];
  const downloads: string[] = [];
  const files = new Map<string, Uint8Array>();
  const redirects = new Map<string, string>();
  let replies: ImagesReply[] = [];
  let origin = '';
  let fileCounter = 0;

  const server = createServer((message, response) => {
    handle(message, response).catch(() => message.socket.destroy());
  });

  async function handle(message: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of message) chunks.push(chunk as Buffer);
    const path = message.url ?? '/';
    if (message.method === 'GET' && path.startsWith('/files/')) {
      downloads.push(path);
      const location = redirects.get(path);
      if (location !== undefined) {
        response.writeHead(302, { location });
        response.end();
        return;
      }
      const bytes = files.get(path);
      if (bytes === undefined) return sendJson(response, 404, { error: { message: 'no such file' } });
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.length });
      response.end(bytes);
      return;
    }
    if (message.method !== 'POST' || path !== '/v1/images/generations') {
      return sendJson(response, 404, { error: { message: `Invalid URL (${message.method} ${path})`, type: 'invalid_request_error', param: null, code: null } });
    }
    requests.push({ path, headers: message.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
    const reply = replies.shift();
    if (reply === undefined) return sendJson(response, 500, { error: { message: 'fake images server: no reply scripted' } });
    const created = Math.floor(Date.now() / 1000);
    switch (reply.kind) {
      case 'b64':
        return sendJson(response, 200, {
          created,
          data: reply.images.map((bytes) => ({ b64_json: Buffer.from(bytes).toString('base64'), revised_prompt: null })),
        });
      case 'url':
        return sendJson(response, 200, {
          created,
          data: reply.images.map((bytes) => {
            fileCounter += 1;
            const filePath = `/files/img-${fileCounter}.png`;
            files.set(filePath, bytes);
            return { url: `${origin}${filePath}` };
          }),
        });
      case 'foreign-url':
        return sendJson(response, 200, { created, data: reply.urls.map((url) => ({ url })) });
      case 'redirect-url': {
        fileCounter += 1;
        const filePath = `/files/redirect-${fileCounter}.png`;
        redirects.set(filePath, reply.location);
        return sendJson(response, 200, { created, data: [{ url: `${origin}${filePath}` }] });
      }
      case 'error':
        return sendJson(response, reply.status, {
          error: { message: reply.message, type: 'invalid_request_error', param: reply.param ?? null, code: reply.code ?? null },
        });
      case 'hang':
        return;
    }
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}/v1`,
    requests,
    downloads,
    reply: (...next) => {
      replies.push(...next);
    },
    reset: () => {
      requests.length = 0;
      downloads.length = 0;
      replies = [];
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}
