import assert from 'node:assert/strict';
import { asApiError, EngineFailure, type EngineFailureKind } from '../../src/core/errors/engine-failure.ts';

/** What the promise rejected with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('the call succeeded');
}

/**
 * Asserts the platform error a client gets, with this code and a message that mentions every word
 * given: an ApiError, or an engine's failure as the one mapping (apiErrorOf) answers it.
 */
export function assertApiError(error: unknown, code: string, ...mentions: string[]): void {
  const platformError = asApiError(error);
  assert.ok(platformError !== undefined, `expected an ApiError or an EngineFailure, got ${String(error)}`);
  assert.equal(platformError.code, code, platformError.message);
  for (const word of mentions) assert.ok(platformError.message.includes(word), `'${platformError.message}' should mention '${word}'`);
}

/** Asserts an EngineFailure of this kind (what the engine did, before any platform code) whose message mentions every word given. */
export function assertEngineFailure(error: unknown, kind: EngineFailureKind, ...mentions: string[]): asserts error is EngineFailure {
  assert.ok(error instanceof EngineFailure, `expected an EngineFailure, got ${String(error)}`);
  assert.equal(error.kind, kind, error.message);
  for (const word of mentions) assert.ok(error.message.includes(word), `'${error.message}' should mention '${word}'`);
}
