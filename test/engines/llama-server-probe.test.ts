import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createOpenAiCompatibleBackend } from '../../src/backends/openai-compatible/openai-compatible.backend.ts';
import { ProbeFailedError } from '../../src/backends/engine-http/probe-engine.ts';
import { unusedResources } from '../helpers/backend-resources.ts';
import { startLlamaServer, type LlamaServer } from '../helpers/llama-server.ts';
import { describeWithLlamaServer } from '../helpers/real-engine-suite.ts';
import { writeTinyGlmGguf } from '../helpers/tiny-glm-gguf.ts';

/** The OpenAI-compatible probe against a real llama-server: its /v1/models names the alias; a stopped server fails the probe. */
describeWithLlamaServer('probe of a real llama-server', (binary) => {
  let engine: LlamaServer;

  before(async () => {
    engine = await startLlamaServer({ binary, modelPath: writeTinyGlmGguf(), alias: 'tiny-glm' });
  });
  after(async () => {
    await engine?.stop();
  });

  it('reports the alias from /v1/models, and fails once the server is gone', async () => {
    const backend = createOpenAiCompatibleBackend({
      modelName: 'glm-local',
      entry: { backend: 'openai-compatible', baseUrl: engine.baseUrl, engine: 'llama.cpp' },
      configDir: '.',
      resources: unusedResources,
    });
    assert.ok(backend.probe !== undefined);
    const result = await backend.probe(AbortSignal.timeout(10_000));
    assert.ok(result.models?.includes('tiny-glm'), `reported ${JSON.stringify(result)}\n${engine.log()}`);
    await engine.kill('SIGKILL');
    await assert.rejects(backend.probe(AbortSignal.timeout(10_000)), ProbeFailedError);
  });
});
