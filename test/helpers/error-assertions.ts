import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';

/** Asserts the platform error body: exact shape, status, code, and (optionally) words in the message. */
export function assertPlatformError(response: LightMyRequestResponse, expected: { status: number; code: string; mentions?: readonly string[] }): void {
  const body = response.json() as { contentFilter?: unknown; error?: { code?: unknown; message?: unknown } };
  assert.equal(response.statusCode, expected.status, `status for ${response.body}`);
  // 1301 carries what was flagged beside the error (docs/wire.md §2.1).
  assert.deepEqual(Object.keys(body), expected.code === '1301' ? ['contentFilter', 'error'] : ['error'], `body shape for ${response.body}`);
  if (expected.code === '1301') assert.ok(Array.isArray(body.contentFilter) && body.contentFilter.length > 0, `contentFilter for ${response.body}`);
  assert.deepEqual(Object.keys(body.error ?? {}).sort(), ['code', 'message']);
  assert.equal(body.error?.code, expected.code, `code for ${response.body}`);
  for (const word of expected.mentions ?? []) {
    assert.ok(String(body.error?.message).includes(word), `message should mention '${word}': ${response.body}`);
  }
}
