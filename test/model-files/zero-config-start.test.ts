import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startServer, type ServerProcess } from '../helpers/cli-process.ts';
import { startFakeHub, type FakeHub } from '../helpers/fake-hugging-face-hub.ts';
import { writeTinyGlmGguf } from '../helpers/tiny-glm-gguf.ts';
import { writeTinyWhisperModel } from '../helpers/tiny-whisper-ggml.ts';
import { makeAudioSamples } from '../helpers/audio-samples.ts';

const key = 'zeroconfig.0123456789abcdef0123456789abcdef';
const model = 'glm-edge-1.5b-chat';
const uri = 'hf://THUDM/glm-edge-1.5b-chat-gguf/ggml-model-Q4_K_M.gguf@main';

/**
 * `serve` with no config file at all, against a hub on loopback that serves the default chat
 * model's file (a tiny random-weight GLM-format GGUF the test writes): the first start fetches it
 * in the background while chat says it is downloading, then chat answers for real.
 */
describe('zero-configuration start: the default chat model fetched from the hub', () => {
  let hub: FakeHub;
  let server: ServerProcess;
  let dataDir: string;
  const weights = readFileSync(writeTinyGlmGguf());

  before(async () => {
    hub = await startFakeHub({
      files: [
        { repo: 'THUDM/glm-edge-1.5b-chat-gguf', file: 'ggml-model-Q4_K_M.gguf', bytes: weights },
        { repo: 'ggerganov/whisper.cpp', file: 'ggml-base.bin', bytes: readFileSync(writeTinyWhisperModel()) },
      ],
      holdAfterBytes: 100_000,
    });
    dataDir = mkdtempSync(join(tmpdir(), 'zero-config-start-'));
    server = await startServer({ HF_ENDPOINT: hub.endpoint, MODEL_PLATFORM_DATA_DIR: dataDir, MODEL_PLATFORM_BOOTSTRAP_KEY: key, MODEL_PLATFORM_PULL: 'on' });
  });
  after(async () => {
    await server?.stop();
    await hub?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const get = (path: string) => fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const post = (path: string, body: unknown) =>
    fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const openai = () => new OpenAI({ apiKey: key, baseURL: `${server.baseUrl}/paas/v4/`, maxRetries: 0 });
  const hello = [{ role: 'user' as const, content: 'Hello there, what is the weather in the city?' }];

  it('says so at start-up and lists the default model', async () => {
    await waitFor(async () => server.output().includes('with no configuration'));
    assert.match(server.output(), /with no configuration: chat completions \(glm-edge-1\.5b-chat\), the tokenizer \(glm-edge-1\.5b-chat\)/);
    assert.match(server.output(), /this machine only; HOST=0\.0\.0\.0/);
    const models = (await (await get('/paas/v4/models')).json()) as { data: { id: string }[] };
    assert.ok(models.data.some((entry) => entry.id === model));
  });

  it('while the file downloads: chat names the download and its percentage; /readyz and /admin/model-files show it', async () => {
    await waitFor(
      async () =>
        ((await (await get('/admin/model-files')).json()) as { data: { uri: string; downloaded_bytes: number }[] }).data.find((file) => file.uri === uri)
          ?.downloaded_bytes === 100_000,
    );
    const response = await post('/paas/v4/chat/completions', { model, messages: hello });
    const body = (await response.json()) as { error: { code: string; message: string } };
    assert.equal(response.status, 400);
    assert.equal(body.error.code, '1221');
    assert.match(body.error.message, new RegExp(`Model 'glm-edge-1\\.5b-chat' is not ready: the platform is downloading ${escape(uri)} \\(20% of 478 KB\\)`));
    const ready = (await (await fetch(`${server.baseUrl}/readyz`)).json()) as { modelFiles: { uri: string }[] };
    assert.deepEqual(
      ready.modelFiles.find((file) => file.uri === uri),
      { uri, state: 'downloading', progress: '20% of 478 KB' },
    );
    const files = (await (await get('/admin/model-files')).json()) as { data: Record<string, unknown>[] };
    assert.deepEqual(
      files.data.filter((file) => file['uri'] === uri).map(({ path: _path, ...rest }) => rest),
      [{ uri, bytes: null, state: 'downloading', downloaded_bytes: 100_000, total_bytes: weights.length, error: null }],
    );
    assert.match(server.output(), /downloading hf:\/\/THUDM\/glm-edge-1\.5b-chat-gguf\/ggml-model-Q4_K_M\.gguf@main: 20% of 478 KB/);
  });

  it('once in place: chat answers for real, sync and streamed, and the tokenizer counts what chat counted', async () => {
    hub.release();
    await waitFor(async () => ((await (await get('/admin/model-files')).json()) as { data: { state: string }[] }).data.every((file) => file.state === 'ready'));
    const completion = await openai().chat.completions.create({ model, messages: hello, max_tokens: 8, temperature: 0 });
    assert.equal(completion.model, model);
    assert.ok(completion.usage !== undefined && completion.usage.completion_tokens > 0);
    const finishReasons: string[] = [];
    for await (const chunk of await openai().chat.completions.create({ model, messages: hello, max_tokens: 8, stream: true })) {
      const reason = chunk.choices[0]?.finish_reason;
      if (reason !== null && reason !== undefined) finishReasons.push(reason);
    }
    // Random weights write noise: what is checked is that the stream ran to its end through the engine.
    assert.equal(finishReasons.length, 1);
    assert.ok(['length', 'stop'].includes(finishReasons[0] ?? ''), finishReasons[0]);
    const counted = (await (await post('/paas/v4/tokenizer', { model, messages: hello })).json()) as { usage: { prompt_tokens: number } };
    assert.equal(counted.usage.prompt_tokens, completion.usage.prompt_tokens);
    // The CPU here; a GPU where node-llama-cpp finds one.
    assert.match(server.output(), /"msg":"model glm-edge-1\.5b-chat loaded on (the CPU \(\d+ threads\)|.+ layers offloaded\))"/);
  });

  it('once in place: glm-asr-2512 transcribes through whisper.cpp, with no config file', async () => {
    const samples = await makeAudioSamples('Hello there, the weather is fine today.');
    const form = new FormData();
    form.append('model', 'glm-asr-2512');
    form.append('file', new Blob([samples.wav], { type: 'audio/wav' }), 'speech.wav');
    const response = await fetch(`${server.baseUrl}/paas/v4/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    const body = (await response.json()) as { text?: unknown; model?: unknown };
    assert.equal(response.status, 200, JSON.stringify(body));
    assert.equal(body.model, 'glm-asr-2512');
    // Random weights: some text, never the words.
    assert.ok(typeof body.text === 'string' && body.text.length > 0, JSON.stringify(body));
    assert.match(server.output(), /"device":"cpu","msg":"model glm-asr-2512 loaded on the CPU \(\d+ threads\)"/);
  });

  it('the translation agent runs on the default model', async () => {
    const response = await post('/v1/agents', {
      agent_id: 'general_translation',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello, world' }] }],
      custom_variables: { source_lang: 'en', target_lang: 'de' },
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    const body = JSON.parse(text) as { choices: { finish_reason: string; messages: { content: { type: string } }[] }[]; usage: { total_calls: number } };
    assert.equal(body.choices[0]?.messages[0]?.content.type, 'text');
    assert.ok(body.usage.total_calls >= 1);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the condition did not hold within 30 s');
}
