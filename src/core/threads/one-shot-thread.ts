import { parentPort, Worker, workerData } from 'node:worker_threads';
import { typescriptWorkerEntry } from './typescript-worker-entry.ts';

/** How long one thread's work may take and how much heap it may use before it is ended. */
export interface ThreadLimits {
  readonly timeoutMs: number;
  readonly heapMegabytes: number;
}

/** What a one-shot thread posts back: its work's result, or the message of what it threw. */
type ThreadReply<Result> = { readonly result: Result } | { readonly error: string };

/**
 * Runs the work of `module` (a worker that calls `answerInThread`) in a thread of its own, started
 * for this input and ended after it, so CPU-heavy reading of an uploaded document costs the
 * server's event loop nothing and a runaway document costs at most the limits. Rejects with the
 * work's own message, on `signal` (with its reason), or with a message that names `task` and the
 * limit it passed.
 */
export function runInThread<Result>(module: URL, input: unknown, limits: ThreadLimits, task: string, signal: AbortSignal): Promise<Result> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const worker = new Worker(typescriptWorkerEntry(module), {
      workerData: input,
      resourceLimits: { maxOldGenerationSizeMb: limits.heapMegabytes },
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
      void worker.terminate();
      outcome();
    };
    const abort = () => settle(() => reject(signal.reason as Error));
    const timer = setTimeout(() => settle(() => reject(new Error(`${task} took longer than ${limits.timeoutMs / 1000} s`))), limits.timeoutMs);
    signal.addEventListener('abort', abort, { once: true });
    worker.once('message', (reply: ThreadReply<Result>) => settle(() => ('error' in reply ? reject(new Error(reply.error)) : resolve(reply.result))));
    worker.once('error', (error: Error & { code?: unknown }) =>
      settle(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new Error(`${task} needed more than ${limits.heapMegabytes} MB of memory`, { cause: error }) : error,
        ),
      ),
    );
    worker.once('exit', (code) => settle(() => reject(new Error(`the thread ${task} ended (code ${code}) before it answered`))));
  });
}

/**
 * The worker's side of `runInThread`: runs `work` on the thread's input and posts its result, or
 * the message of what it threw, once.
 */
export async function answerInThread<Input, Result>(work: (input: Input) => Result | Promise<Result>): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('answerInThread runs in a worker thread started by runInThread');
  let reply: ThreadReply<Result>;
  try {
    reply = { result: await work(workerData as Input) };
  } catch (error) {
    reply = { error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
}
