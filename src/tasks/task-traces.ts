import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { LRUCache } from 'lru-cache';
import { inSpan, platformTracer } from '../core/telemetry/tracing.ts';
import type { QueuedTask } from '../store/task-repository.ts';
import type { RunOutcome } from './task-runner.ts';

/** Tasks whose trace this process remembers at most (the least recently used is forgotten first). */
const maxRemembered = 10_000;

/**
 * Carries a task's trace from its submission to its run while tracing is on: the submission is a
 * producer span in the request's trace; its W3C traceparent is kept here for this process's
 * workers (the embedded queue) and sent in the BullMQ job for the others, so the run's consumer
 * span (and the engine calls under it) continues the request's trace. A task run by another
 * process of the embedded queue starts a trace of its own. Without tracing nothing is kept.
 */
export class TaskTraces {
  readonly #byTask = new LRUCache<string, string>({ max: maxRemembered });

  /** Runs a submission in a `task submit <kind>` span; `submit` resolves with the task it wrote. */
  submit<Submitted extends { readonly id: string }>(kind: string, submit: () => Promise<Submitted>): Promise<Submitted> {
    if (platformTracer() === undefined) return submit();
    return inSpan(
      `task submit ${kind}`,
      async (span) => {
        const task = await submit();
        span?.setAttribute('model_platform.task_id', task.id);
        this.#remember(task.id);
        return task;
      },
      { 'model_platform.task_kind': kind },
      'producer',
    );
  }

  /** The traceparent of a task submitted here (for the BullMQ job), else undefined. */
  traceparentOf(taskId: string): string | undefined {
    return this.#byTask.get(taskId);
  }

  /**
   * Runs one attempt of `task` in a `task run <kind>` span, the child of its submission when its
   * traceparent is known (`carried` from the job, else remembered here). Once the task is over its
   * trace is forgotten; a retry is run in the same trace.
   */
  run(task: QueuedTask, carried: string | undefined, attempt: () => Promise<RunOutcome>): Promise<RunOutcome> {
    const tracer = platformTracer();
    if (tracer === undefined) return attempt();
    const traceparent = carried ?? this.#byTask.get(task.id);
    const parent = traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, { traceparent });
    const span = tracer.startSpan(
      `task run ${task.kind}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'model_platform.task_id': task.id,
          'model_platform.task_kind': task.kind,
          'model_platform.task_attempt': task.attempts,
          'gen_ai.request.model': task.model,
        },
      },
      parent,
    );
    // The runner never rejects: an attempt's failure is its outcome, and its engine spans say why.
    return context.with(trace.setSpan(parent, span), attempt).then((outcome) => {
      span.setAttribute('model_platform.task_outcome', outcome.kind);
      span.end();
      if (outcome.kind === 'finished') this.#byTask.delete(task.id);
      return outcome;
    });
  }

  #remember(taskId: string): void {
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    if (carrier['traceparent'] === undefined) return;
    this.#byTask.set(taskId, carrier['traceparent']);
  }
}
