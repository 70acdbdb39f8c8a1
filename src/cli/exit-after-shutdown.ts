/**
 * The end of `serve` and `worker`: once everything is closed nothing should keep the process
 * alive, but a handle something left open (a socket, a timer) would keep it running forever after
 * SIGTERM. After `graceMs` the process exits anyway, naming what was still open so it can be found.
 * Returns `code`, the exit code when nothing is left open.
 */
export function exitAfterShutdown(code: number, log: (message: string) => void, graceMs = 5_000): number {
  const timer = setTimeout(() => {
    log(`shut down, but still open after ${graceMs} ms: ${process.getActiveResourcesInfo().join(', ')}; exiting`);
    process.exit(code);
  }, graceMs);
  timer.unref();
  return code;
}
