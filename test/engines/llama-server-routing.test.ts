import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { deploymentHeader } from '../../src/http/served-by-headers.ts';
import { startLlamaServer, type LlamaServer } from '../helpers/llama-server.ts';
import { describeWithLlamaServer } from '../helpers/real-engine-suite.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { writeTinyGlmGguf } from '../helpers/tiny-glm-gguf.ts';

const url = '/paas/v4/chat/completions';
const alias = 'tiny-glm';

/**
 * Two real llama-server instances behind one model: while calls run, one is stopped; every call
 * that starts after that is answered by the other (its first failure moves to the survivor, and the
 * stopped one cools down), so no new call fails.
 */
describeWithLlamaServer('one model on two real llama-servers, one stopped mid-run', (binary) => {
  let engines: [LlamaServer, LlamaServer];
  let test: TestPlatform;

  before(async () => {
    const modelPath = writeTinyGlmGguf();
    engines = [await startLlamaServer({ binary, modelPath, alias, parallel: 4 }), await startLlamaServer({ binary, modelPath, alias, parallel: 4 })];
    const deployments = engines.map((engine) => ({
      backend: 'openai-compatible' as const,
      baseUrl: engine.baseUrl,
      upstreamModel: alias,
      engine: 'llama.cpp' as const,
    }));
    test = await startTestPlatform({ config: { models: { 'glm-4.6': { deployments } } } });
  });
  after(async () => {
    await test?.close();
    await Promise.all((engines ?? []).map((engine) => engine.stop()));
  });

  it('serves every call started after one engine stops from the other', async () => {
    const body = { model: 'glm-4.6', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8, thinking: { type: 'disabled' } };
    const [victim] = engines;
    let stoppedAt = Number.POSITIVE_INFINITY;
    const outcomes: { startedAt: number; status: number; served: string; body: string }[] = [];
    let next = 0;
    let startedAfterStop = 0;
    // Calls go on while the engine is being stopped (that takes a few seconds), and until 60 have
    // started after it is gone, however fast the machine is.
    const worker = async () => {
      for (let index = next++; index < 2_000 && startedAfterStop < 60; index = next++) {
        if (index === 60) {
          await victim.stop();
          stoppedAt = Date.now();
        }
        const startedAt = Date.now();
        if (startedAt >= stoppedAt) startedAfterStop += 1;
        const response = await postJson(test, url, body);
        outcomes.push({ startedAt, status: response.statusCode, served: String(response.headers[deploymentHeader]), body: response.body.slice(0, 300) });
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    const afterStop = outcomes.filter((outcome) => outcome.startedAt >= stoppedAt);
    assert.ok(afterStop.length >= 40, `${afterStop.length} calls after the stop`);
    assert.deepEqual(
      afterStop.filter((outcome) => outcome.status !== 200),
      [],
      'no call started after the stop failed',
    );
    assert.ok(afterStop.every((outcome) => outcome.served === 'glm-4.6#2'));
    const beforeStop = outcomes.filter((outcome) => outcome.startedAt < stoppedAt);
    const servedBefore = beforeStop.map((outcome) => `${outcome.status} ${outcome.served}`);
    // A call running on the engine as it stops fails (it had begun there): only answered calls name who served them.
    const answeredBefore = beforeStop.filter((outcome) => outcome.status === 200);
    assert.equal(new Set(answeredBefore.map((outcome) => outcome.served)).size, 2, `both engines served before the stop: ${servedBefore.join(', ')}`);
    const victimState = test.platform.backends.deploymentStates().find((state) => state.deployment === 'glm-4.6#1');
    assert.equal(victimState?.state, 'cooling-down');
  });
});
