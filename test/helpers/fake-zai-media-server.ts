import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 that answers image and video generation as the upstream
 * platform does under `/api/paas/v4`: sync `POST /images/generations` (`{created, data: [{url}],
 * content_filter}`), async submissions `POST /async/images/generations` and `POST
 * /videos/generations` (`{model, id, request_id, task_status}`), `GET /async-result/{id}`
 * (PROCESSING for a few polls, then SUCCESS with image_result / video_result, or FAIL), errors as
 * `{"error":{"code","message"}}`, and the media files its URLs name.
 */
type ZaiMediaPlan =
  | { readonly kind: 'images'; readonly images: readonly Uint8Array[]; readonly pendingPolls?: number }
  | { readonly kind: 'video'; readonly video: Uint8Array; readonly cover?: Uint8Array; readonly pendingPolls?: number }
  /** The upstream task ends FAIL. */
  | { readonly kind: 'fail'; readonly pendingPolls?: number }
  /** The submission itself is answered with this error. */
  | { readonly kind: 'error'; readonly status: number; readonly code: string; readonly message: string };

interface ZaiMediaRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: Record<string, unknown> | undefined;
}

export interface FakeZaiMediaServer {
  /** `http://127.0.0.1:<port>/api/paas/v4`. */
  readonly baseUrl: string;
  readonly requests: readonly ZaiMediaRequest[];
  plan(...plans: ZaiMediaPlan[]): void;
  reset(): void;
  close(): Promise<void>;
}

interface UpstreamTask {
  readonly plan: ZaiMediaPlan;
  readonly model: unknown;
  polls: number;
}

const prefix = '/api/paas/v4';

export async function startFakeZaiMediaServer(options: { apiKey: string }): Promise<FakeZaiMediaServer> {
  const requests: ZaiMediaRequest[] = [];
  const tasks = new Map<string, UpstreamTask>();
  const files = new Map<string, Uint8Array>();
  let plans: ZaiMediaPlan[] = [];
  let origin = '';

  const server = createServer((message, response) => {
    handle(message, response).catch(() => message.socket.destroy());
  });

  function store(bytes: Uint8Array, extension: string): string {
    const path = `/files/${randomBytes(6).toString('hex')}.${extension}`;
    files.set(path, bytes);
    return `${origin}${path}`;
  }

  async function handle(message: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of message) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const path = message.url ?? '/';
    if (message.method === 'GET' && path.startsWith('/files/')) {
      const bytes = files.get(path);
      if (bytes === undefined) return sendJson(response, 404, {});
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length });
      response.end(bytes);
      return;
    }
    const body = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
    requests.push({ method: message.method ?? '', path, authorization: message.headers.authorization, body });
    if (message.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendJson(response, 401, { error: { code: '1002', message: 'Authorization Token非法，请确认Authorization Token正确传递。' } });
    }
    if (message.method === 'GET' && path.startsWith(`${prefix}/async-result/`)) {
      const id = decodeURIComponent(path.slice(`${prefix}/async-result/`.length));
      const task = tasks.get(id);
      if (task === undefined) return sendJson(response, 404, { error: { code: '404', message: 'task not found' } });
      task.polls += 1;
      const pending = 'pendingPolls' in task.plan ? (task.plan.pendingPolls ?? 0) : 0;
      if (task.polls <= pending) return sendJson(response, 200, { id, model: task.model, request_id: id, task_status: 'PROCESSING' });
      if (task.plan.kind === 'images') {
        const image_result = task.plan.images.map((bytes) => ({ url: store(bytes, 'png') }));
        return sendJson(response, 200, { id, model: task.model, request_id: id, task_status: 'SUCCESS', image_result });
      }
      if (task.plan.kind === 'video') {
        const cover = task.plan.cover === undefined ? '' : store(task.plan.cover, 'png');
        const video_result = [{ url: store(task.plan.video, 'mp4'), cover_image_url: cover }];
        return sendJson(response, 200, { id, model: task.model, request_id: id, task_status: 'SUCCESS', video_result });
      }
      return sendJson(response, 200, { id, model: task.model, request_id: id, task_status: 'FAIL' });
    }
    const submission = [`${prefix}/images/generations`, `${prefix}/async/images/generations`, `${prefix}/videos/generations`];
    if (message.method !== 'POST' || !submission.includes(path)) return sendJson(response, 404, { error: { code: '1222', message: 'no such API' } });
    const plan = plans.shift();
    if (plan === undefined) return sendJson(response, 500, { error: { code: '500', message: 'fake upstream: nothing planned' } });
    if (plan.kind === 'error') return sendJson(response, plan.status, { error: { code: plan.code, message: plan.message } });
    if (path === `${prefix}/images/generations`) {
      if (plan.kind !== 'images') throw new Error('fake upstream: a sync image request needs an images plan');
      return sendJson(response, 200, {
        created: Math.floor(Date.now() / 1000),
        data: plan.images.map((bytes) => ({ url: store(bytes, 'png') })),
        content_filter: [{ role: 'assistant', level: 2 }],
      });
    }
    const id = `upstream-${randomBytes(8).toString('hex')}`;
    tasks.set(id, { plan, model: body?.['model'], polls: 0 });
    sendJson(response, 200, { model: body?.['model'], id, request_id: id, task_status: 'PROCESSING' });
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}${prefix}`,
    requests,
    plan: (...next) => {
      plans.push(...next);
    },
    reset: () => {
      requests.length = 0;
      plans = [];
      tasks.clear();
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
