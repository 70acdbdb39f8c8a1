const minute = 60_000;

/** How long a task of each kind may take from submission, when its submitter does not say. */
const defaultTaskTimeoutsMs: Readonly<Record<string, number>> = {
  image: 10 * minute,
  video: 30 * minute,
};

/** The default for kinds the table does not name. */
const fallbackTaskTimeoutMs = 10 * minute;

export function defaultTaskTimeoutMs(kind: string): number {
  return defaultTaskTimeoutsMs[kind] ?? fallbackTaskTimeoutMs;
}
