import { randomBytes } from 'node:crypto';

/**
 * A platform-style task id: UTC time to the second, then 16 random hex characters (30 in all).
 * Random rather than counted, so ids cannot be guessed (reads are checked against the owner too).
 */
export function generateTaskId(now: number = Date.now()): string {
  const stamp = new Date(now).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${stamp}${randomBytes(8).toString('hex')}`;
}
