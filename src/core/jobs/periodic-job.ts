/**
 * Runs `work` now and then every `intervalMs`, never two passes at once; a failed pass goes to
 * `onError` and is tried again at the next interval. The timer does not keep the process alive.
 * Returns a stop function that waits for a pass under way.
 */
export function startPeriodicJob(work: () => Promise<unknown>, intervalMs: number, onError: (error: unknown) => void): () => Promise<void> {
  let running: Promise<void> | undefined;
  const pass = () => {
    running ??= work()
      .then(() => undefined, onError)
      .finally(() => (running = undefined));
  };
  pass();
  const timer = setInterval(pass, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
