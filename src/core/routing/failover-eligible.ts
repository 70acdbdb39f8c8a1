import { EngineFailure, type EngineFailureKind } from '../errors/engine-failure.ts';

/** Failures where the engine produced nothing usable: another deployment may take the call. */
const retriedKinds: ReadonlySet<EngineFailureKind> = new Set(['unreachable', 'timeout', 'overloaded', 'unavailable', 'engine-error']);

/**
 * Whether a failed engine call may move to another deployment: the engine was unreachable, timed
 * out, was busy or failed on its side, and no part of the answer went out. Anything about the
 * input (too long, rejected, filtered), a misconfiguration or a broken answer would fail the same
 * way elsewhere, or worse, produce a second generation; a stream cut after its first part is
 * never retried.
 */
export function isFailoverEligible(error: unknown): boolean {
  return error instanceof EngineFailure && !error.answerStarted && retriedKinds.has(error.kind);
}

/**
 * Whether a failure tells against the deployment's health (it cools down): those of
 * `isFailoverEligible`, wherever the answer had got to. A stream cut mid-answer alone does not:
 * one broken connection says little, and an engine that died fails the next call's connect anyway.
 */
export function isDeploymentFault(error: unknown): boolean {
  return error instanceof EngineFailure && retriedKinds.has(error.kind);
}
