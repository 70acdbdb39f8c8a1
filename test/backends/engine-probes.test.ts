import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createComfyUiBackend } from '../../src/backends/comfyui/comfyui.backend.ts';
import { ProbeFailedError, maxProbeAnswerBytes } from '../../src/backends/engine-http/probe-engine.ts';
import { createGlmOcrBackend } from '../../src/backends/glm-ocr/glm-ocr.backend.ts';
import { createLlamaCppBackend } from '../../src/backends/llama-cpp/llama-cpp.backend.ts';
import { createLocalIndexBackend } from '../../src/backends/local-index/local-index.backend.ts';
import { createOpenAiCompatibleBackend } from '../../src/backends/openai-compatible/openai-compatible.backend.ts';
import { createOpenAiImagesBackend } from '../../src/backends/openai-images/openai-images.backend.ts';
import { createOpenAiTranscriptionBackend } from '../../src/backends/openai-transcription/openai-transcription.backend.ts';
import { createPaddleOcrBackend } from '../../src/backends/paddle-ocr/paddle-ocr.backend.ts';
import { createSearxngBackend } from '../../src/backends/searxng/searxng.backend.ts';
import { createZaiBackend } from '../../src/backends/zai/zai.backend.ts';
import type { Backend, BackendResources } from '../../src/core/backends/backend.ts';
import { startFakeOpenAiServer, type FakeOpenAiServer, type FakeReply } from '../helpers/fake-openai-server.ts';
import { unusedResources } from '../helpers/backend-resources.ts';
import { freePort } from '../tasks/task-test-kit.ts';

/** Each backend kind's active probe, against a scripted engine on loopback: what it asks, what it reports, when it fails. */
let engine: FakeOpenAiServer;
const apiKey = 'sk-probe-secret-1234567890';

before(async () => {
  engine = await startFakeOpenAiServer();
});
after(async () => {
  await engine.close();
});
beforeEach(() => engine.reset());

function probeOf(backend: Backend): (signal?: AbortSignal) => Promise<unknown> {
  const probe = backend.probe;
  assert.ok(probe !== undefined, 'the backend has a probe');
  return (signal = AbortSignal.timeout(10_000)) => probe.call(backend, signal);
}

const context = <Entry>(entry: Entry, resources: BackendResources = unusedResources) => ({ modelName: 'm', entry, configDir: '.', resources });

describe('OpenAI-compatible servers', () => {
  const probe = () => probeOf(createOpenAiCompatibleBackend(context({ backend: 'openai-compatible' as const, baseUrl: engine.baseUrl, apiKey })))();

  it('GETs {baseUrl}/models with the apiKey and reports the model ids (vLLM and llama-server shapes)', async () => {
    engine.enqueue({
      kind: 'json',
      body: { object: 'list', data: [{ id: 'zai-org/GLM-4.7', object: 'model' }], models: [{ name: 'glm-alias', model: 'glm-alias' }] },
    });
    assert.deepEqual(await probe(), { models: ['zai-org/GLM-4.7', 'glm-alias'] });
    assert.equal(engine.requests[0]?.method, 'GET');
    assert.equal(engine.requests[0]?.path, '/v1/models');
    assert.equal(engine.requests[0]?.headers.authorization, `Bearer ${apiKey}`);
  });

  it('fails on 503 (llama-server still loading), on 404 (a baseUrl without /v1) and on an answer without a list', async () => {
    engine.enqueue({ kind: 'json', status: 503, body: { error: { message: 'Loading model' } } });
    await assert.rejects(probe(), (error: Error) => error instanceof ProbeFailedError && error.status === 503 && /HTTP 503/.test(error.message));
    engine.enqueue({ kind: 'text', status: 404, body: 'Not Found' });
    await assert.rejects(probe(), /HTTP 404 \(check baseUrl\)/);
    engine.enqueue({ kind: 'json', body: { hello: 'world' } });
    await assert.rejects(probe(), /without a model list/);
  });

  it('says 401 is the apiKey, and stops when its caller aborts', async () => {
    engine.enqueue({ kind: 'json', status: 401, body: { error: { message: 'bad key' } } });
    await assert.rejects(probe(), /HTTP 401 \(check apiKey\)/);
    engine.enqueue({ kind: 'hang' });
    const aborted = new AbortController();
    const pending = probeOf(createOpenAiCompatibleBackend(context({ backend: 'openai-compatible' as const, baseUrl: engine.baseUrl })))(aborted.signal);
    setTimeout(() => aborted.abort(new Error('caller gave up')), 50);
    await assert.rejects(pending, /caller gave up/);
  });

  it('caps the answer it reads and fails an engine that sends more', async () => {
    engine.enqueue({ kind: 'text', status: 200, body: 'x'.repeat(maxProbeAnswerBytes + 1), contentType: 'application/json' });
    await assert.rejects(probe(), /over its cap/);
  });

  it('fails on a refused connection without the apiKey in the message', async () => {
    const port = await freePort();
    const dead = createOpenAiCompatibleBackend(context({ backend: 'openai-compatible' as const, baseUrl: `http://127.0.0.1:${port}/v1`, apiKey }));
    await assert.rejects(
      probeOf(dead)(),
      (error: Error) => error instanceof ProbeFailedError && /ECONNREFUSED/.test(error.message) && !error.message.includes(apiKey),
    );
  });
});

describe('other HTTP kinds', () => {
  const models: FakeReply = { kind: 'json', body: { object: 'list', data: [{ id: 'whisper-1' }] } };

  it('openai-transcription and openai-images report /models, and count a server without /models as up', async () => {
    engine.enqueue(models, { kind: 'text', status: 404, body: 'Not Found' });
    const transcription = probeOf(createOpenAiTranscriptionBackend(context({ backend: 'openai-transcription' as const, baseUrl: engine.baseUrl })));
    assert.deepEqual(await transcription(), { models: ['whisper-1'] });
    const images = probeOf(createOpenAiImagesBackend(context({ backend: 'openai-images' as const, baseUrl: engine.baseUrl })));
    assert.deepEqual(await images(), { detail: 'answers (no model list)' });
    engine.enqueue({ kind: 'json', status: 500, body: { error: { message: 'boom' } } });
    await assert.rejects(images(), /HTTP 500/);
  });

  it('zai asks {baseUrl}/models with its apiKey; a refused key fails', async () => {
    engine.enqueue(models, { kind: 'json', status: 401, body: { error: { code: '1000', message: 'auth' } } });
    const zai = probeOf(createZaiBackend(context({ backend: 'zai' as const, baseUrl: engine.baseUrl, apiKey })));
    assert.deepEqual(await zai(), { models: ['whisper-1'] });
    assert.equal(engine.requests[0]?.headers.authorization, `Bearer ${apiKey}`);
    await assert.rejects(zai(), /HTTP 401/);
  });

  it('glm-ocr asks its vision server', async () => {
    engine.enqueue({ kind: 'json', body: { data: [{ id: 'zai-org/GLM-OCR' }] } });
    const glmOcr = probeOf(createGlmOcrBackend(context({ backend: 'glm-ocr' as const, baseUrl: engine.baseUrl })));
    assert.deepEqual(await glmOcr(), { models: ['zai-org/GLM-OCR'] });
  });

  it('ComfyUI: GET /system_stats, its version and devices reported', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probe-comfy-'));
    writeFileSync(join(dir, 'workflow.json'), JSON.stringify({ '1': { class_type: 'SaveImage', inputs: { filename_prefix: '{{prompt}}' } } }));
    engine.enqueue({ kind: 'json', body: { system: { comfyui_version: '0.3.40', os: 'posix' }, devices: [{ name: 'cuda:0', type: 'cuda' }] } });
    const comfy = createComfyUiBackend({
      modelName: 'm',
      entry: { backend: 'comfyui', baseUrl: engine.origin, workflow: 'workflow.json' },
      configDir: dir,
      resources: unusedResources,
    });
    assert.deepEqual(await probeOf(comfy)(), { detail: 'ComfyUI 0.3.40, 1 device(s)' });
    assert.equal(engine.requests[0]?.path, '/system_stats');
  });

  it('SearXNG: GET /healthz', async () => {
    engine.enqueue({ kind: 'text', status: 200, body: 'OK' }, { kind: 'text', status: 502, body: 'Bad Gateway' });
    const searxng = probeOf(createSearxngBackend(context({ backend: 'searxng' as const, baseUrl: `${engine.origin}/` })));
    assert.deepEqual(await searxng(), { detail: 'answers' });
    assert.equal(engine.requests[0]?.path, '/healthz');
    await assert.rejects(searxng(), /GET \/healthz answered HTTP 502/);
  });
});

describe('in-process kinds', () => {
  it('llama-cpp: before its first call, the GGUF file must be readable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probe-llama-'));
    writeFileSync(join(dir, 'model.gguf'), 'GGUF');
    const present = createLlamaCppBackend({
      modelName: 'm',
      entry: { backend: 'llama-cpp', modelPath: 'model.gguf' },
      configDir: dir,
      resources: unusedResources,
    });
    assert.deepEqual(await probeOf(present)(), { detail: 'loads on first use' });
    const absent = createLlamaCppBackend({
      modelName: 'm',
      entry: { backend: 'llama-cpp', modelPath: 'gone.gguf' },
      configDir: dir,
      resources: unusedResources,
    });
    await assert.rejects(probeOf(absent)(), (error: Error) => /gone\.gguf cannot be read \(ENOENT\)/.test(error.message) && !error.message.includes(dir));
  });

  it('paddle-ocr finds its model files; local-index answers in process', async () => {
    assert.deepEqual(await probeOf(createPaddleOcrBackend(context({ backend: 'paddle-ocr' as const })))(), { detail: 'in process (PP-OCRv4)' });
    const resources = { searchIndex: {}, reader: {} } as unknown as BackendResources;
    assert.deepEqual(await probeOf(createLocalIndexBackend(context({ backend: 'local-index' as const }, resources)))(), { detail: 'in process' });
  });
});
