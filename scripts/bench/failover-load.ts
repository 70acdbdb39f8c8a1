// The failover case of bench:engine (BENCH_ROUTED=1): a model with two deployments under steady
// load loses one engine; how soon do its answers per second reach what the surviving engine alone
// gives the platform?
import { agentFor, postAnswer, type AnswerTarget } from './answer-load.ts';

export interface FailoverResult {
  /** Answers per second of the one-deployment platform on the surviving engine (the goal). */
  readonly survivorPerSecond: number;
  /** Answers per second of the routed platform in each second after the stop. */
  readonly perSecondAfterStop: readonly number[];
  /** End of the first second after the stop whose answers reach 90% of the goal; undefined if none did. */
  readonly reachedAfterSeconds: number | undefined;
  /** Calls running on the stopped engine that failed (they had begun there: not retried, by design). */
  readonly failedInFlight: number;
  /** Calls started after the stop that failed (routing should leave none). */
  readonly failedAfterStop: number;
}

interface Outcome {
  readonly startedAt: number;
  readonly endedAt: number;
  readonly ok: boolean;
}

const concurrency = 16;
const reachedShare = 0.9;

/** Closed-loop sync calls with `concurrency` in flight for `durationMs`; `during` runs beside them. */
async function closedLoop(target: AnswerTarget, durationMs: number, during?: () => Promise<void>): Promise<Outcome[]> {
  const body = target.body(false);
  const agent = agentFor(target, false, concurrency);
  const outcomes: Outcome[] = [];
  const until = performance.now() + durationMs;
  const worker = async () => {
    while (performance.now() < until) {
      const startedAt = performance.now();
      const ok = await postAnswer(target, body, agent).then(
        () => true,
        () => false,
      );
      outcomes.push({ startedAt, endedAt: performance.now(), ok });
    }
  };
  try {
    await Promise.all([...Array.from({ length: concurrency }, worker), during?.()]);
  } finally {
    agent?.destroy();
  }
  return outcomes;
}

/**
 * `single` (one deployment on the engine that survives) gives the goal over `measureMs`; then
 * `routed` runs for `beforeMs`, `stop` kills its other engine, and it runs `afterMs` more.
 */
export async function measureFailover(
  single: AnswerTarget,
  routed: AnswerTarget,
  stop: () => Promise<void>,
  timing = { measureMs: 6_000, beforeMs: 3_000, afterMs: 10_000 },
): Promise<FailoverResult> {
  const steady = await closedLoop(single, timing.measureMs);
  // The first second fills the engine's slots; the goal is the steady rate after it.
  const steadyFrom = (steady[0]?.startedAt ?? 0) + 1_000;
  const survivorPerSecond = steady.filter((outcome) => outcome.ok && outcome.endedAt >= steadyFrom).length / ((timing.measureMs - 1_000) / 1000);

  let stoppedAt = Number.POSITIVE_INFINITY;
  const outcomes = await closedLoop(routed, timing.beforeMs + timing.afterMs, async () => {
    await new Promise((resolve) => setTimeout(resolve, timing.beforeMs));
    stoppedAt = performance.now();
    await stop();
  });
  const perSecondAfterStop = Array.from(
    { length: Math.floor(timing.afterMs / 1000) },
    (_, second) =>
      outcomes.filter((outcome) => outcome.ok && outcome.endedAt >= stoppedAt + second * 1000 && outcome.endedAt < stoppedAt + (second + 1) * 1000).length,
  );
  const reached = perSecondAfterStop.findIndex((rate) => rate >= reachedShare * survivorPerSecond);
  return {
    survivorPerSecond,
    perSecondAfterStop,
    reachedAfterSeconds: reached < 0 ? undefined : reached + 1,
    failedInFlight: outcomes.filter((outcome) => !outcome.ok && outcome.startedAt < stoppedAt).length,
    failedAfterStop: outcomes.filter((outcome) => !outcome.ok && outcome.startedAt >= stoppedAt).length,
  };
}
