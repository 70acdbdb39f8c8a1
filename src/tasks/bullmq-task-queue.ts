import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { TaskHandler } from '../core/tasks/task.ts';
import type { QueuedTask, TaskRepository } from '../store/task-repository.ts';
import { Semaphore } from '../core/backends/concurrency-limit.ts';
import type { TaskLog, TaskTuning } from './task-workers.ts';
import type { TaskQueue, TaskQueueOptions } from './task-queue.ts';
import type { TaskRunner } from './task-runner.ts';
import type { TaskTraces } from './task-traces.ts';

interface TaskJob {
  readonly id: string;
  /** The submission's W3C traceparent, while tracing is on. */
  readonly traceparent?: string;
}

/**
 * The distributed queue: one BullMQ queue per task kind on Redis dispatches tasks to the workers
 * that have a handler for it. Redis only says "look at task X": the worker still claims the row in
 * the database, so a job delivered twice runs once, and a sweep re-sends tasks whose job Redis
 * lost (a flushed Redis, a worker killed mid-task) once they are claimable again. A job whose
 * handler key is at its limit waits in its worker slot (BullMQ has no per-key admission).
 */
export class BullmqTaskQueue implements TaskQueue {
  readonly #redisUrl: string;
  readonly #repository: TaskRepository;
  readonly #runner: TaskRunner;
  readonly #handlers: ReadonlyMap<string, TaskHandler>;
  readonly #concurrency: number;
  readonly #tuning: TaskTuning;
  readonly #workerId: string;
  readonly #log: TaskLog;
  readonly #traces: TaskTraces | undefined;
  readonly #slots = new Semaphore();
  readonly #shutdown = new AbortController();
  #closed = false;
  readonly #queues = new Map<string, Queue>();
  readonly #workers: Worker[] = [];
  readonly #connections: Redis[] = [];
  #sweepTimer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(options: TaskQueueOptions & { readonly redisUrl: string }) {
    this.#redisUrl = options.redisUrl;
    this.#repository = options.repository;
    this.#runner = options.runner;
    this.#handlers = options.handlers;
    this.#concurrency = options.concurrency;
    this.#tuning = options.tuning;
    this.#workerId = options.workerId;
    this.#log = options.log;
    this.#traces = options.traces;
  }

  async dispatch(task: QueuedTask): Promise<void> {
    // Closed: no new connections; the row is queued and any worker's sweep sends it.
    if (this.#closed) return;
    try {
      // The job id names the attempt: adding a job that Redis still holds is a no-op.
      const traceparent = this.#traces?.traceparentOf(task.id);
      const job: TaskJob = traceparent === undefined ? { id: task.id } : { id: task.id, traceparent };
      await this.#queue(task.kind).add('run', job, {
        jobId: `${task.id}-${task.attempts}`,
        delay: Math.max(0, task.runAfter - Date.now()),
        removeOnComplete: true,
        removeOnFail: true,
      });
    } catch (error) {
      this.#log(`task ${task.id}: Redis did not take it; the sweep will send it again`, error);
    }
  }

  start(): void {
    if (this.#workers.length > 0 || this.#handlers.size === 0) return;
    for (const kind of this.#handlers.keys()) {
      const worker = new Worker<TaskJob>(queueName(kind), (job) => this.#process(job), {
        connection: this.#connect(),
        concurrency: this.#concurrency,
      });
      worker.on('error', (error) => this.#log(`task worker (${kind}): Redis error`, error));
      this.#workers.push(worker);
    }
    // Resumes what a previous run left (and what Redis lost) at once, then every sweepMs.
    const sweep = () => {
      this.#sweeping ??= this.#sweep().finally(() => (this.#sweeping = undefined));
    };
    sweep();
    this.#sweepTimer = setInterval(sweep, this.#tuning.sweepMs);
  }

  async close(): Promise<void> {
    this.#shutdown.abort(new Error('worker shutting down'));
    clearInterval(this.#sweepTimer);
    await this.#sweeping;
    // Running tasks see the abort, hand their rows back and re-dispatch them before their jobs end.
    await Promise.all(this.#workers.map((worker) => worker.close()));
    this.#closed = true;
    await Promise.all([...this.#queues.values()].map((queue) => queue.close()));
    await Promise.all(this.#connections.map((connection) => connection.quit().catch(() => connection.disconnect())));
  }

  async #process(job: Job<TaskJob>): Promise<void> {
    try {
      const task = await this.#repository.find(job.data.id);
      if (task === undefined || task.state === 'done') return;
      const limit = this.#handlers.get(task.kind)?.concurrency?.(task);
      const release =
        limit === undefined ? () => undefined : await this.#slots.acquire(`${task.kind}:${limit.key}`, this.#shutdown.signal, { keyLimit: limit.limit });
      try {
        const now = Date.now();
        const claimed = await this.#repository.claim(task.id, this.#workerId, now + this.#tuning.leaseMs, now, this.#tuning.maxAttempts);
        // Not claimable: another worker has it, it is not due yet, or it ended. Its row says what happens next.
        if (claimed === undefined) return;
        const outcome = await this.#runner.run(claimed, this.#shutdown.signal, job.data.traceparent);
        if (outcome.kind === 'retry' || outcome.kind === 'released') {
          const next = await this.#repository.find(claimed.id);
          if (next !== undefined && next.state === 'queued') await this.dispatch(next);
        }
      } finally {
        release();
      }
    } catch (error) {
      // Never fail the job: the row is the truth, and the sweep re-sends what is still claimable.
      if (!this.#shutdown.signal.aborted) this.#log(`task ${job.data.id}: worker error`, error);
    }
  }

  async #sweep(): Promise<void> {
    try {
      const now = Date.now();
      await this.#repository.failAbandoned(now, this.#tuning.maxAttempts);
      const claimable = await this.#repository.listClaimable([...this.#handlers.keys()], now, this.#tuning.maxAttempts, 500);
      for (const task of claimable) {
        if (this.#shutdown.signal.aborted) return;
        await this.dispatch(task);
      }
    } catch (error) {
      this.#log('task sweep failed; trying again later', error);
    }
  }

  #queue(kind: string): Queue {
    let queue = this.#queues.get(kind);
    if (queue === undefined) {
      queue = new Queue(queueName(kind), { connection: this.#connect() });
      queue.on('error', (error) => this.#log(`task queue (${kind}): Redis error`, error));
      this.#queues.set(kind, queue);
    }
    return queue;
  }

  #connect(): Redis {
    // BullMQ's workers block on Redis: they need maxRetriesPerRequest null (ENVIRONMENT.md).
    const connection = new Redis(this.#redisUrl, { maxRetriesPerRequest: null });
    connection.on('error', (error) => {
      if (!this.#shutdown.signal.aborted) this.#log('Redis connection error', error);
    });
    this.#connections.push(connection);
    return connection;
  }
}

/** The BullMQ queue of one task kind. */
export function queueName(kind: string): string {
  return `model-platform-tasks-${kind}`;
}
