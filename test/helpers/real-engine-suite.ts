import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findLlamaServer, realEngineRequired } from './llama-server.ts';

const absent =
  'llama-server is absent: LLAMA_SERVER_BIN does not name an executable. `npm test` builds it ' +
  '(scripts/test/build-llama-server.sh, cached under ~/.cache/model-platform) and sets LLAMA_SERVER_BIN.';

/**
 * A suite that runs against a real llama-server. Without the binary it is skipped with a reason
 * that says so, except where the real engine is required (CI, REQUIRE_REAL_ENGINE=1): there it
 * fails, so that a CI run never passes without having run it.
 */
export function describeWithLlamaServer(name: string, body: (binary: string) => void, options: { timeoutMs?: number } = {}): void {
  const binary = findLlamaServer();
  if (binary !== undefined) {
    // A wait on the engine that never ends fails the suite rather than hanging the run.
    describe(name, { timeout: options.timeoutMs ?? 120_000 }, () => body(binary));
  } else if (realEngineRequired()) {
    describe(name, () => {
      it('finds the llama-server binary (the real engine is required here)', () => {
        assert.fail(`${absent} The real-engine tests are required (CI or REQUIRE_REAL_ENGINE=1) and cannot run.`);
      });
    });
  } else {
    describe(name, { skip: `skipped: ${absent}` }, () => {});
  }
}
