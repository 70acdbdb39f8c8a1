/** The span a quota or rate counter covers: its name part and when it starts and resets (Unix ms). */
export interface LimitWindow {
  readonly id: string;
  readonly startsAt: number;
  readonly resetsAt: number;
}

/** A quota period in UTC: the calendar day or month that contains `now`. */
export function quotaWindow(period: 'day' | 'month', now: number): LimitWindow {
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  if (period === 'day') {
    const startsAt = Date.UTC(year, month, date.getUTCDate());
    return { id: `d${startsAt / 86_400_000}`, startsAt, resetsAt: startsAt + 86_400_000 };
  }
  const startsAt = Date.UTC(year, month, 1);
  return { id: `m${year * 12 + month}`, startsAt, resetsAt: Date.UTC(year, month + 1, 1) };
}

/**
 * The calendar minute that contains `now`: a fixed window, so "N per minute" admits exactly N
 * in each window whichever node counts them (a sliding log would need a set per key).
 */
export function minuteWindow(now: number): LimitWindow {
  const startsAt = now - (now % 60_000);
  return { id: `t${startsAt / 60_000}`, startsAt, resetsAt: startsAt + 60_000 };
}
