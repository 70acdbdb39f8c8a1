import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One file the fake hub serves; `servedBytes` in place of `bytes` goes out over the wire (a corrupted transfer). */
interface FakeHubFile {
  readonly repo: string;
  readonly file: string;
  readonly bytes: Buffer;
  readonly servedBytes?: Buffer | undefined;
}

export interface FakeHubOptions {
  readonly files: readonly FakeHubFile[];
  /** Answers 401 to a request without `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** The CDN breaks its first ranged transfer after this many bytes (a cut connection). */
  readonly cutFirstTransferAfter?: number;
  /** The CDN sends this many bytes a second at most, so a test can watch a download in progress. */
  readonly bytesPerSecond?: number;
  /** The CDN sends this many bytes of each transfer, then waits for `release()` before the rest. */
  readonly holdAfterBytes?: number;
}

export interface FakeHub {
  /** HF_ENDPOINT for the platform. */
  readonly endpoint: string;
  /** The `Range` headers of the CDN's GET requests, in order (undefined: a whole-file request). */
  readonly cdnRanges: (string | undefined)[];
  /** Hub requests as `METHOD path`. */
  readonly hubRequests: string[];
  /** Lets the transfers held by `holdAfterBytes` go on. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A Hugging Face hub on 127.0.0.1 with the real URL layout: `GET /api/models/<owner>/<repo>`
 * (`sha`, `siblings[].rfilename`) and `GET|HEAD /<owner>/<repo>/resolve/<revision>/<file>`,
 * answered as the hub answers an LFS file: a 302 to its CDN (a second loopback server) with
 * `ETag`, `X-Repo-Commit`, `X-Linked-Size` and `X-Linked-Etag` (the SHA-256). The CDN honours
 * single `Range` requests (206, `Content-Range`).
 */
export async function startFakeHub(options: FakeHubOptions): Promise<FakeHub> {
  const commit = 'a'.repeat(40);
  const byHash = new Map<string, FakeHubFile>();
  const cdnRanges: (string | undefined)[] = [];
  const hubRequests: string[] = [];
  let transfers = 0;
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const hold = options.holdAfterBytes === undefined ? undefined : { bytes: options.holdAfterBytes, released };
  const cdn = createServer((request, response) => {
    const file = byHash.get((request.url ?? '').slice(1));
    if (file === undefined) return void response.writeHead(404).end();
    if (request.method === 'GET') cdnRanges.push(request.headers.range);
    // Downloaders ask for the size first (HEAD, or a GET they drop); the transfer cut is the first ranged one.
    const ranged = request.method === 'GET' && request.headers.range !== undefined;
    if (ranged) transfers += 1;
    const cutAfter = ranged && transfers === 1 ? options.cutFirstTransferAfter : undefined;
    void sendRange(request, response, file.servedBytes ?? file.bytes, { cutAfter, bytesPerSecond: options.bytesPerSecond, hold });
  });
  const cdnOrigin = await listen(cdn);
  for (const file of options.files) byHash.set(sha256(file.bytes), file);
  const hub = createServer((request, response) => {
    hubRequests.push(`${request.method} ${request.url}`);
    if (options.token !== undefined && request.headers.authorization !== `Bearer ${options.token}`) {
      return void response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Invalid credentials in Authorization header"}');
    }
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://hub').pathname);
    const api = /^\/api\/models\/([^/]+\/[^/]+)$/.exec(path);
    if (api !== null) {
      const siblings = options.files.filter((file) => file.repo === api[1]).map((file) => ({ rfilename: file.file }));
      if (siblings.length === 0) return void response.writeHead(404).end('{"error":"Repository not found"}');
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: api[1], sha: commit, siblings }));
    }
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    const file = resolve === null ? undefined : options.files.find((candidate) => candidate.repo === resolve[1] && candidate.file === resolve[3]);
    if (file === undefined) return void response.writeHead(404, { 'x-error-code': 'EntryNotFound' }).end('Entry not found');
    const hash = sha256(file.bytes);
    response
      .writeHead(302, {
        location: `${cdnOrigin}/${hash}`,
        etag: `"${hash}"`,
        'x-repo-commit': commit,
        'x-linked-size': String(file.bytes.length),
        'x-linked-etag': `"${hash}"`,
      })
      .end();
  });
  const endpoint = await listen(hub);
  return {
    endpoint,
    cdnRanges,
    hubRequests,
    release,
    async close() {
      release();
      for (const server of [hub, cdn]) {
        server.closeAllConnections();
        server.close();
        await once(server, 'close');
      }
    },
  };
}

interface Pacing {
  readonly cutAfter: number | undefined;
  readonly bytesPerSecond: number | undefined;
  readonly hold: { readonly bytes: number; readonly released: Promise<void> } | undefined;
}

async function sendRange(request: IncomingMessage, response: ServerResponse, bytes: Buffer, pacing: Pacing): Promise<void> {
  const { cutAfter, bytesPerSecond, hold } = pacing;
  const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
  const start = range === null ? 0 : Number(range[1]);
  const end = range === null || range[2] === '' ? bytes.length - 1 : Math.min(Number(range[2]), bytes.length - 1);
  const headers = {
    'accept-ranges': 'bytes',
    'content-type': 'application/octet-stream',
    'content-length': String(end - start + 1),
    etag: `"${sha256(bytes)}"`,
  };
  if (range !== null) response.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${bytes.length}` });
  else response.writeHead(200, headers);
  if (request.method === 'HEAD') return void response.end();
  let body = bytes.subarray(start, end + 1);
  if (hold !== undefined && body.length > hold.bytes) {
    response.write(body.subarray(0, hold.bytes));
    await hold.released;
    body = body.subarray(hold.bytes);
  }
  if (cutAfter !== undefined) {
    response.write(body.subarray(0, cutAfter));
    await new Promise((resolve) => setTimeout(resolve, 50));
    return void response.destroy();
  }
  if (bytesPerSecond === undefined) return void response.end(body);
  const chunk = Math.max(1, Math.floor(bytesPerSecond / 10));
  for (let offset = 0; offset < body.length && !response.destroyed; offset += chunk) {
    response.write(body.subarray(offset, offset + chunk));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  response.end();
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
