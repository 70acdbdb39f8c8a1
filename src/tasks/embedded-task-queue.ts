import type { TaskHandler } from '../core/tasks/task.ts';
import type { QueuedTask, TaskRepository } from '../store/task-repository.ts';
import { Semaphore } from '../core/backends/concurrency-limit.ts';
import type { TaskLog, TaskTuning } from './task-workers.ts';
import type { TaskQueue, TaskQueueOptions } from './task-queue.ts';
import type { TaskRunner } from './task-runner.ts';

/**
 * The default queue: workers in this process poll the `tasks` table and claim rows with a
 * conditional UPDATE, so any number of processes on one database share the work and never run a
 * task twice. Leases that expire (a process killed mid-task) make the task claimable again.
 */
export class EmbeddedTaskQueue implements TaskQueue {
  readonly #repository: TaskRepository;
  readonly #runner: TaskRunner;
  readonly #handlers: ReadonlyMap<string, TaskHandler>;
  readonly #concurrency: number;
  readonly #tuning: TaskTuning;
  readonly #workerId: string;
  readonly #log: TaskLog;
  readonly #slots = new Semaphore();
  readonly #running = new Set<Promise<void>>();
  readonly #shutdown = new AbortController();
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  /** A wake-up that came while the loop was busy: its next sleep returns at once. */
  #wakeRequested = false;
  #nextSweep = 0;

  constructor(options: TaskQueueOptions) {
    this.#repository = options.repository;
    this.#runner = options.runner;
    this.#handlers = options.handlers;
    this.#concurrency = options.concurrency;
    this.#tuning = options.tuning;
    this.#workerId = options.workerId;
    this.#log = options.log;
  }

  async dispatch(): Promise<void> {
    this.#wakeUp();
  }

  start(): void {
    if (this.#loop !== undefined || this.#handlers.size === 0) return;
    this.#loop = this.#work();
  }

  async close(): Promise<void> {
    this.#shutdown.abort(new Error('worker shutting down'));
    this.#wakeUp();
    await this.#loop;
    await Promise.all(this.#running);
  }

  async #work(): Promise<void> {
    while (!this.#shutdown.signal.aborted) {
      let claimed = 0;
      try {
        await this.#sweep();
        claimed = await this.#claimSome();
      } catch (error) {
        this.#log('task worker: the database refused a claim; trying again shortly', error);
      }
      // More may be waiting when this pass filled what it could; otherwise sleep until woken.
      if (claimed === 0 || this.#running.size >= this.#concurrency) await this.#sleep();
    }
  }

  async #sweep(): Promise<void> {
    const now = Date.now();
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + this.#tuning.sweepMs;
    await this.#repository.failAbandoned(now, this.#tuning.maxAttempts);
  }

  async #claimSome(): Promise<number> {
    const free = this.#concurrency - this.#running.size;
    if (free <= 0) return 0;
    const now = Date.now();
    // A few more than the free slots, so tasks of a saturated model do not block the others.
    const candidates = await this.#repository.listClaimable([...this.#handlers.keys()], now, this.#tuning.maxAttempts, free * 4);
    let claimed = 0;
    for (const candidate of candidates) {
      if (this.#running.size >= this.#concurrency || this.#shutdown.signal.aborted) break;
      const release = this.#reserve(candidate);
      if (release === undefined) continue;
      const task = await this.#repository
        .claim(candidate.id, this.#workerId, Date.now() + this.#tuning.leaseMs, Date.now(), this.#tuning.maxAttempts)
        .catch((error: unknown) => {
          release();
          throw error;
        });
      if (task === undefined) {
        release();
        continue;
      }
      claimed += 1;
      this.#track(task, release);
    }
    return claimed;
  }

  #reserve(task: QueuedTask): (() => void) | undefined {
    const limit = this.#handlers.get(task.kind)?.concurrency?.(task);
    if (limit === undefined) return () => undefined;
    return this.#slots.tryAcquire(`${task.kind}:${limit.key}`, limit.limit);
  }

  #track(task: QueuedTask, release: () => void): void {
    const running: Promise<void> = this.#runner.run(task, this.#shutdown.signal).then(() => {
      release();
      this.#running.delete(running);
      // A freed slot is work for the loop.
      this.#wakeUp();
    });
    this.#running.add(running);
  }

  #wakeUp(): void {
    if (this.#wake === undefined) this.#wakeRequested = true;
    else this.#wake();
  }

  #sleep(): Promise<void> {
    if (this.#wakeRequested || this.#shutdown.signal.aborted) {
      this.#wakeRequested = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.#tuning.pollMs);
      this.#wake = done;
    });
  }
}
