/**
 * Runs `work` under the caller's signal and a deadline of `timeoutMs`, through one signal the
 * work passes to every call it makes. When the deadline passes, the work is aborted and the
 * call rejects with `timeoutError()`; when the caller aborts, with the caller's reason; any
 * other failure is passed on as it is.
 */
export async function runWithDeadline<Result>(
  callerSignal: AbortSignal,
  timeoutMs: number,
  timeoutError: () => Error,
  work: (signal: AbortSignal) => Promise<Result>,
): Promise<Result> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(timeoutError());
  }, timeoutMs);
  const onCallerAbort = () => controller.abort(callerSignal.reason);
  if (callerSignal.aborted) onCallerAbort();
  else callerSignal.addEventListener('abort', onCallerAbort, { once: true });
  try {
    return await work(controller.signal);
  } catch (error) {
    callerSignal.throwIfAborted();
    if (timedOut) throw timeoutError();
    throw error;
  } finally {
    clearTimeout(timer);
    callerSignal.removeEventListener('abort', onCallerAbort);
  }
}
