/** Usage is counted by UTC calendar day: `YYYY-MM-DD` in the ledger and its rollups. */
export const dayMs = 86_400_000;

/** The last day formatted: every ledger row names its day, and nearly all of them today. */
let lastDay = { number: Number.NaN, text: '' };

/** The UTC day holding a Unix ms time, as `YYYY-MM-DD`. */
export function utcDay(ms: number): string {
  const number = Math.floor(ms / dayMs);
  if (number !== lastDay.number) lastDay = { number, text: new Date(ms).toISOString().slice(0, 10) };
  return lastDay.text;
}

/** Days since 1970-01-01 (UTC) of a Unix ms time. */
export function dayNumber(ms: number): number {
  return Math.floor(ms / dayMs);
}

/** Whether `text` is a real calendar date written `YYYY-MM-DD`. */
export function isUtcDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(ms) && utcDay(ms) === text;
}

/** The Unix ms start of a `YYYY-MM-DD` day. */
export function dayStartMs(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}
