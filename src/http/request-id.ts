import { randomBytes } from 'node:crypto';

/** Per process: 8 random hex characters, so ids of different nodes and restarts do not collide. */
const processTag = randomBytes(4).toString('hex');
let counter = 0;
let stampSecond = -1;
/** The second's UTC stamp and the process tag: one string per second, not per id. */
let prefix = '';

/**
 * A platform-style id: UTC time to the second, then 16 hex characters (30 in all) made of a
 * process tag and a counter. No crypto call per request: ids must be unique, not secret.
 */
export function generateRequestId(now: number = Date.now()): string {
  const second = Math.floor(now / 1000);
  if (second !== stampSecond) {
    stampSecond = second;
    prefix = `${new Date(second * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14)}${processTag}`;
  }
  counter = (counter + 1) % 0x100000000;
  return prefix + counter.toString(16).padStart(8, '0');
}
