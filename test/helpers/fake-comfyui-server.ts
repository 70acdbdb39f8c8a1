import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 that speaks ComfyUI's API as ComfyUI 0.3 answers it:
 * POST /prompt (queue, or 400 with node_errors), GET /history/{id} (`{}` until the prompt has
 * finished, then its entry with status and outputs), GET /view, POST /upload/image (multipart),
 * POST /queue {delete} and POST /interrupt {prompt_id}. Each queued prompt follows the plan the
 * test sets: how many history polls it stays unfinished, then success with files, an
 * execution error, or never finishing.
 */

/** A file an output node saved: listed under `kind` in history, served by /view. */
interface FakeOutputFile {
  readonly node: string;
  /** `images` (SaveImage, SaveVideo), `gifs` (VideoHelperSuite), `videos`. */
  readonly kind: string;
  readonly filename: string;
  readonly subfolder?: string;
  /** `output` (saved) or `temp` (a preview). */
  readonly type?: string;
  readonly bytes: Uint8Array;
}

type PromptPlan =
  | { readonly outcome: 'success'; readonly pendingPolls?: number; readonly files: readonly FakeOutputFile[] }
  | {
      readonly outcome: 'error';
      readonly pendingPolls?: number;
      readonly nodeId: string;
      readonly nodeType: string;
      readonly exceptionType: string;
      readonly exceptionMessage: string;
    }
  | { readonly outcome: 'never' }
  /** POST /prompt answers 400 with this node error (validation failed). */
  | { readonly outcome: 'refuse'; readonly nodeId: string; readonly classType: string; readonly message: string; readonly details: string };

interface QueuedPrompt {
  readonly id: string;
  readonly clientId: unknown;
  readonly workflow: Record<string, { class_type: string; inputs: Record<string, unknown> }>;
  /** History polls answered so far. */
  polls: number;
}

interface FakeUpload {
  readonly name: string;
  readonly type: string;
  readonly overwrite: string;
  readonly contentType: string;
  readonly bytes: Uint8Array;
}

export interface FakeComfyUiServer {
  readonly baseUrl: string;
  readonly prompts: readonly QueuedPrompt[];
  readonly uploads: readonly FakeUpload[];
  /** Bodies of POST /queue and POST /interrupt, in order. */
  readonly cancellations: readonly { readonly path: string; readonly body: unknown }[];
  /** The plan for the next prompts, in order; afterwards `setDefaultPlan`'s. */
  plan(...plans: PromptPlan[]): void;
  setDefaultPlan(plan: PromptPlan | undefined): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeComfyUiServer(): Promise<FakeComfyUiServer> {
  const prompts: QueuedPrompt[] = [];
  const plans = new Map<string, PromptPlan>();
  const uploads: FakeUpload[] = [];
  const cancellations: { path: string; body: unknown }[] = [];
  const files = new Map<string, Uint8Array>();
  let queue: PromptPlan[] = [];
  let fallback: PromptPlan | undefined;
  let counter = 0;

  const server = createServer((message, response) => {
    handle(message, response).catch((error: unknown) => sendJson(response, 500, { error: String(error) }));
  });

  async function handle(message: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of message) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(message.url ?? '/', 'http://fake');
    if (message.method === 'POST' && url.pathname === '/prompt') return queuePrompt(JSON.parse(raw.toString('utf8')), response);
    if (message.method === 'GET' && url.pathname.startsWith('/history/')) return history(decodeURIComponent(url.pathname.slice('/history/'.length)), response);
    if (message.method === 'GET' && url.pathname === '/view') {
      const key = fileKey(url.searchParams.get('type') ?? 'output', url.searchParams.get('subfolder') ?? '', url.searchParams.get('filename') ?? '');
      const bytes = files.get(key);
      if (bytes === undefined) return sendJson(response, 404, {});
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length });
      response.end(bytes);
      return;
    }
    if (message.method === 'POST' && url.pathname === '/upload/image') {
      const form = await new Response(raw, { headers: { 'content-type': message.headers['content-type'] ?? '' } }).formData();
      const image = form.get('image');
      if (!(image instanceof File)) return sendJson(response, 400, {});
      const upload: FakeUpload = {
        name: image.name,
        type: String(form.get('type') ?? 'input'),
        overwrite: String(form.get('overwrite') ?? ''),
        contentType: image.type,
        bytes: new Uint8Array(await image.arrayBuffer()),
      };
      uploads.push(upload);
      return sendJson(response, 200, { name: upload.name, subfolder: '', type: upload.type });
    }
    if (message.method === 'POST' && (url.pathname === '/queue' || url.pathname === '/interrupt')) {
      cancellations.push({ path: url.pathname, body: raw.length === 0 ? undefined : JSON.parse(raw.toString('utf8')) });
      response.writeHead(200);
      response.end();
      return;
    }
    sendJson(response, 404, {});
  }

  function queuePrompt(body: { prompt?: QueuedPrompt['workflow']; client_id?: unknown }, response: ServerResponse): void {
    const plan = queue.shift() ?? fallback;
    if (plan === undefined) throw new Error('fake ComfyUI: no plan for this prompt');
    if (plan.outcome === 'refuse') {
      sendJson(response, 400, {
        error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details: '', extra_info: {} },
        node_errors: {
          [plan.nodeId]: {
            errors: [{ type: 'value_not_in_list', message: plan.message, details: plan.details, extra_info: {} }],
            dependent_outputs: ['9'],
            class_type: plan.classType,
          },
        },
      });
      return;
    }
    const id = randomUUID();
    prompts.push({ id, clientId: body.client_id, workflow: body.prompt ?? {}, polls: 0 });
    plans.set(id, plan);
    counter += 1;
    sendJson(response, 200, { prompt_id: id, number: counter, node_errors: {} });
  }

  function history(id: string, response: ServerResponse): void {
    const prompt = prompts.find((candidate) => candidate.id === id);
    const plan = plans.get(id);
    if (prompt === undefined || plan === undefined) return sendJson(response, 200, {});
    prompt.polls += 1;
    const unfinished = plan.outcome === 'never' || plan.outcome === 'refuse' || prompt.polls <= (plan.pendingPolls ?? 0);
    if (unfinished) return sendJson(response, 200, {});
    const started = ['execution_start', { prompt_id: id, timestamp: Date.now() }];
    if (plan.outcome === 'error') {
      sendJson(response, 200, {
        [id]: {
          prompt: [counter, id, prompt.workflow, {}, []],
          outputs: {},
          status: {
            status_str: 'error',
            completed: false,
            messages: [
              started,
              ['execution_cached', { nodes: [], prompt_id: id, timestamp: Date.now() }],
              [
                'execution_error',
                {
                  prompt_id: id,
                  node_id: plan.nodeId,
                  node_type: plan.nodeType,
                  executed: [],
                  exception_message: plan.exceptionMessage,
                  exception_type: plan.exceptionType,
                  traceback: ['  File "execution.py", line 1'],
                  current_inputs: {},
                  current_outputs: {},
                  timestamp: Date.now(),
                },
              ],
            ],
          },
          meta: {},
        },
      });
      return;
    }
    const outputs: Record<string, Record<string, unknown[]>> = {};
    for (const file of plan.files) {
      const subfolder = file.subfolder ?? '';
      const type = file.type ?? 'output';
      files.set(fileKey(type, subfolder, file.filename), file.bytes);
      const node = (outputs[file.node] ??= {});
      (node[file.kind] ??= []).push({ filename: file.filename, subfolder, type });
      // SaveVideo marks its `images` entry as animated, as ComfyUI does.
      if (file.kind === 'images' && /\.(mp4|webm)$/.test(file.filename)) node['animated'] = [true];
    }
    sendJson(response, 200, {
      [id]: {
        prompt: [counter, id, prompt.workflow, {}, Object.keys(outputs)],
        outputs,
        status: { status_str: 'success', completed: true, messages: [started, ['execution_success', { prompt_id: id, timestamp: Date.now() }]] },
        meta: {},
      },
    });
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    prompts,
    uploads,
    cancellations,
    plan: (...next) => {
      queue.push(...next);
    },
    setDefaultPlan: (plan) => {
      fallback = plan;
    },
    reset: () => {
      prompts.length = 0;
      uploads.length = 0;
      cancellations.length = 0;
      plans.clear();
      files.clear();
      queue = [];
      fallback = undefined;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

function fileKey(type: string, subfolder: string, filename: string): string {
  return `${type}/${subfolder}/${filename}`;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}
