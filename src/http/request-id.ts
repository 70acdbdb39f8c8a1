import { randomBytes } from 'node:crypto';

/** A platform-style request id: UTC time to the second, then 16 hex characters (30 in all). */
export function generateRequestId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${stamp}${randomBytes(8).toString('hex')}`;
}
