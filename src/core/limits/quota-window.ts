/** The span a quota or rate counter covers: its name part and when it starts and resets (Unix ms). */
export interface LimitWindow {
  readonly id: string;
  readonly startsAt: number;
  readonly resetsAt: number;
}

/**
 * The last window computed of each kind: admission asks for the window of "now" several times per
 * request, and it changes once a minute, day or month. Callers may compare windows by identity.
 */
const latest = { day: undefined as LimitWindow | undefined, month: undefined as LimitWindow | undefined, minute: undefined as LimitWindow | undefined };

/** A quota period in UTC: the calendar day or month that contains `now`. */
export function quotaWindow(period: 'day' | 'month', now: number): LimitWindow {
  const cached = latest[period];
  if (cached !== undefined && now >= cached.startsAt && now < cached.resetsAt) return cached;
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  let window: LimitWindow;
  if (period === 'day') {
    const startsAt = Date.UTC(year, month, date.getUTCDate());
    window = { id: `d${startsAt / 86_400_000}`, startsAt, resetsAt: startsAt + 86_400_000 };
  } else {
    const startsAt = Date.UTC(year, month, 1);
    window = { id: `m${year * 12 + month}`, startsAt, resetsAt: Date.UTC(year, month + 1, 1) };
  }
  // Only windows of the present are kept (usage records of an earlier day must not displace today's).
  if (cached === undefined || window.startsAt > cached.startsAt) latest[period] = window;
  return window;
}

/**
 * The calendar minute that contains `now`: a fixed window, so "N per minute" admits exactly N
 * in each window whichever node counts them (a sliding log would need a set per key).
 */
export function minuteWindow(now: number): LimitWindow {
  const cached = latest.minute;
  if (cached !== undefined && now >= cached.startsAt && now < cached.resetsAt) return cached;
  const startsAt = now - (now % 60_000);
  const window = { id: `t${startsAt / 60_000}`, startsAt, resetsAt: startsAt + 60_000 };
  if (cached === undefined || window.startsAt > cached.startsAt) latest.minute = window;
  return window;
}
