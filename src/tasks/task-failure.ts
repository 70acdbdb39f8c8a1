import { asApiError, EngineFailure } from '../core/errors/engine-failure.ts';
import { RetryableTaskError } from '../core/tasks/retryable-task-error.ts';
import type { TaskError } from '../store/task-repository.ts';

export interface ClassifiedFailure {
  readonly error: TaskError;
  readonly retryable: boolean;
  /** Unexpected errors (bugs) are logged; the client sees a generic 500. */
  readonly unexpected: boolean;
}

/** What a handler's error means for the task: its code and message, and whether running it again can help. */
export function classifyFailure(error: unknown): ClassifiedFailure {
  if (error instanceof RetryableTaskError) {
    return { error: { code: error.code, message: error.message }, retryable: true, unexpected: false };
  }
  // An engine's failure is recorded with the code a client would have seen for it in a direct call.
  const platformError = asApiError(error);
  if (platformError !== undefined) {
    // Once the engine had answered (its media generated, its answer begun), running the task again
    // would generate (and, upstream, bill) the work a second time, as routing never does either.
    const engineAnswered = error instanceof EngineFailure && error.answerStarted;
    return { error: { code: platformError.code, message: platformError.message }, retryable: platformError.retryable && !engineAnswered, unexpected: false };
  }
  return {
    error: { code: '500', message: 'The task failed with an internal error.' },
    retryable: false,
    unexpected: true,
  };
}

/** Exponential backoff before the next run, after `attempt` runs, with jitter so retries spread out. */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.8 + Math.random() * 0.4));
}
