import { setFlagsFromString } from 'node:v8';

/**
 * Makes V8 collect the old generation when it has grown by 30% past what the last full
 * collection kept, instead of its default of up to 4x. A server's requests leave short-lived
 * garbage that survives a young collection or two while in flight; with the default, the heap of
 * a busy server (and its RSS) climbed by ~1 KB per request for 100k+ requests before the first
 * full collection (bench:chat). A full collection of this heap costs tens of milliseconds, mostly
 * on V8's helper threads, once every several thousand requests. NODE_OPTIONS or node flags that
 * set the growth themselves win.
 */
export function keepHeapSteady(): void {
  const flags = `${process.env['NODE_OPTIONS'] ?? ''} ${process.execArgv.join(' ')}`;
  if (!flags.includes('heap-growing-percent')) setFlagsFromString('--heap-growing-percent=30');
}
