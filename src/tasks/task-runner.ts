import type { TaskOutcome } from '../core/metrics/platform-metrics.ts';
import type { TaskHandler } from '../core/tasks/task.ts';
import { timedOutError, type QueuedTask, type TaskFence, type TaskRepository } from '../store/task-repository.ts';
import type { TaskLog, TaskTuning } from './task-workers.ts';
import { classifyFailure, retryDelayMs } from './task-failure.ts';
import { engineFailureLogged } from '../core/logging/engine-failure-log.ts';
import type { TaskTraces } from './task-traces.ts';

/** How one run ended, for the queue: `retry` and `released` tasks need dispatching again. */
export type RunOutcome =
  | { readonly kind: 'finished' }
  | { readonly kind: 'retry'; readonly runAfter: number }
  | { readonly kind: 'released' }
  /** The lease was lost (or the database refused the write): whoever holds it now decides. */
  | { readonly kind: 'abandoned' };

/**
 * Hears of each task this worker ended: succeeded, failed for good, or timed out (the metrics),
 * with the task and, on success, the handler's result (the usage ledger). Called only when this
 * worker's fenced write of the outcome went through: once per task, whichever worker ends it.
 */
export type TaskFinishedListener = (kind: string, outcome: TaskOutcome, task: QueuedTask, result: unknown) => void;

class Deadline extends Error {}
class LeaseLost extends Error {}

/**
 * Runs a claimed task to its end: the handler under a signal that aborts at the deadline, on
 * shutdown or when the lease is lost; a heartbeat that keeps the lease; then one fenced write of
 * the outcome. Never throws: a write that fails leaves the lease to expire and the task to be
 * claimed again, so nothing is lost.
 */
export class TaskRunner {
  readonly #repository: TaskRepository;
  readonly #handlers: ReadonlyMap<string, TaskHandler>;
  readonly #tuning: TaskTuning;
  readonly #workerId: string;
  readonly #log: TaskLog;
  readonly #onFinished: TaskFinishedListener;
  readonly #traces: TaskTraces | undefined;

  constructor(
    repository: TaskRepository,
    handlers: ReadonlyMap<string, TaskHandler>,
    tuning: TaskTuning,
    workerId: string,
    log: TaskLog,
    onFinished: TaskFinishedListener = () => undefined,
    traces?: TaskTraces,
  ) {
    this.#repository = repository;
    this.#handlers = handlers;
    this.#tuning = tuning;
    this.#workerId = workerId;
    this.#log = log;
    this.#onFinished = onFinished;
    this.#traces = traces;
  }

  /** One attempt of `task`; `traceparent` is its submission's trace, where the queue carried it (tracing only). */
  run(task: QueuedTask, shutdown: AbortSignal, traceparent?: string): Promise<RunOutcome> {
    if (this.#traces === undefined) return this.#attempt(task, shutdown);
    return this.#traces.run(task, traceparent, () => this.#attempt(task, shutdown));
  }

  async #attempt(task: QueuedTask, shutdown: AbortSignal): Promise<RunOutcome> {
    const fence: TaskFence = { id: task.id, leaseOwner: this.#workerId, attempt: task.attempts };
    const handler = this.#handlers.get(task.kind);
    if (handler === undefined) return this.#write(fence, 'release', () => this.#repository.release(fence, Date.now()), { kind: 'released' });

    const deadline = new AbortController();
    const leaseLost = new AbortController();
    const deadlineTimer = setTimeout(() => deadline.abort(new Deadline()), clampDelay(task.deadlineAt - Date.now()));
    const heartbeat = setInterval(() => {
      this.#repository.extendLease(fence, Date.now() + this.#tuning.leaseMs, Date.now()).then(
        (held) => {
          if (!held) leaseLost.abort(new LeaseLost());
        },
        // A missed heartbeat is not fatal: the lease outlives a few of them.
        (error: unknown) => this.#log(`task ${task.id}: heartbeat failed`, error),
      );
    }, this.#tuning.heartbeatMs);
    const signal = AbortSignal.any([shutdown, deadline.signal, leaseLost.signal]);

    try {
      const settled = await settle(handler, task, signal);
      if (settled.ok) {
        return this.#counted(
          task,
          'success',
          await this.#write(fence, 'result', () => this.#repository.complete(fence, settled.value, Date.now()), { kind: 'finished' }),
          settled.value,
        );
      }
      if (leaseLost.signal.aborted) return { kind: 'abandoned' };
      if (deadline.signal.aborted) {
        return this.#counted(
          task,
          'timeout',
          await this.#write(fence, 'timeout', () => this.#repository.fail(fence, timedOutError, Date.now()), { kind: 'finished' }),
        );
      }
      if (shutdown.aborted) {
        return await this.#write(fence, 'release', () => this.#repository.release(fence, Date.now()), { kind: 'released' });
      }
      return await this.#fail(task, fence, settled.error);
    } finally {
      clearTimeout(deadlineTimer);
      clearInterval(heartbeat);
    }
  }

  async #fail(task: QueuedTask, fence: TaskFence, error: unknown): Promise<RunOutcome> {
    const failure = classifyFailure(error);
    // An engine's failure has its own line already (with the model and engine).
    if (failure.unexpected && !engineFailureLogged(error)) this.#log(`task ${task.id} (${task.kind}): the handler failed unexpectedly`, error);
    const now = Date.now();
    const runAfter = now + retryDelayMs(task.attempts, this.#tuning.retryBaseMs, this.#tuning.retryMaxMs);
    if (failure.retryable && task.attempts < this.#tuning.maxAttempts && runAfter < task.deadlineAt) {
      return this.#write(fence, 'retry', () => this.#repository.retryLater(fence, runAfter, failure.error, now), { kind: 'retry', runAfter });
    }
    return this.#counted(task, 'fail', await this.#write(fence, 'failure', () => this.#repository.fail(fence, failure.error, now), { kind: 'finished' }));
  }

  /** Reports a run that ended the task (its outcome written under this worker's lease). */
  #counted(task: QueuedTask, outcome: TaskOutcome, result: RunOutcome, value?: unknown): RunOutcome {
    if (result.kind === 'finished') this.#onFinished(task.kind, outcome, task, value);
    return result;
  }

  async #write(fence: TaskFence, what: string, write: () => Promise<boolean>, outcome: RunOutcome): Promise<RunOutcome> {
    try {
      return (await write()) ? outcome : { kind: 'abandoned' };
    } catch (error) {
      this.#log(`task ${fence.id}: could not record its ${what}; it will be claimed again when the lease expires`, error);
      return { kind: 'abandoned' };
    }
  }
}

type Settled = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/**
 * The handler's result, or its error; or the abort reason as soon as the signal aborts, even when
 * the handler ignores its signal (its late result is then dropped).
 */
function settle(handler: TaskHandler, task: QueuedTask, signal: AbortSignal): Promise<Settled> {
  return new Promise<Settled>((resolve) => {
    const onAbort = () => resolve({ ok: false, error: signal.reason });
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    const finish = (settled: Settled) => {
      signal.removeEventListener('abort', onAbort);
      resolve(settled);
    };
    Promise.resolve()
      .then(() => handler.run(task, signal))
      .then(
        (value) => finish({ ok: true, value }),
        (error: unknown) => finish({ ok: false, error }),
      );
  });
}

/** setTimeout fires at once for delays over 2^31-1 ms; no deadline is that far, but stay safe. */
function clampDelay(delay: number): number {
  return Math.max(0, Math.min(delay, 2 ** 31 - 1));
}
