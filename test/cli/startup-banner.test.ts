import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startupBanner } from '../../src/cli/startup-banner.ts';
import { startServer } from '../helpers/cli-process.ts';

const searchModels = ['search-prime', 'search_std', 'search_pro', 'search_pro_sogou', 'search_pro_quark'];

describe('start-up banner', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'model-platform-banner-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('with no config file: the address, the docs and what works with no configuration', () => {
    const banner = startupBanner({ address: 'http://0.0.0.0:8080', publicUrl: undefined, config: {} });
    assert.deepEqual(banner.fields, {
      address: 'http://0.0.0.0:8080',
      docs: 'http://127.0.0.1:8080/docs',
      console: 'http://127.0.0.1:8080/console',
      models: [],
      noConfiguration: [
        { feature: 'chat completions', models: ['glm-edge-1.5b-chat'], backend: 'llama-cpp' },
        { feature: 'the tokenizer', models: ['glm-edge-1.5b-chat'], backend: 'llama-cpp' },
        { feature: 'web search', models: searchModels, backend: 'local-index' },
        { feature: 'layout parsing', models: ['glm-ocr'], backend: 'paddle-ocr' },
        { feature: 'audio transcription', models: ['glm-asr-2512'], backend: 'whisper-cpp' },
        { feature: 'the web reader', backend: 'built-in reader' },
      ],
    });
    assert.equal(
      banner.message,
      'model-platform serving on http://0.0.0.0:8080; API docs at http://127.0.0.1:8080/docs; console at http://127.0.0.1:8080/console; ' +
        'no models configured; ' +
        'with no configuration: chat completions (glm-edge-1.5b-chat), the tokenizer (glm-edge-1.5b-chat), web search, layout parsing (glm-ocr), audio transcription (glm-asr-2512), the web reader',
    );
  });

  it('configured models with their engine kind and host only; an overridden zero-configuration model leaves that list', () => {
    const banner = startupBanner({
      address: 'http://127.0.0.1:9000',
      publicUrl: 'https://models.example.com/',
      config: {
        models: {
          'glm-4.7': { backend: 'openai-compatible', baseUrl: 'http://operator:hunter2@gpu1.internal:8000/v1?token=t0ps3cret', apiKey: 'sk-secret-key' },
          'glm-ocr': { backend: 'llama-cpp', modelPath: '/models/private/ocr.gguf' },
        },
      },
    });
    assert.equal(banner.fields.docs, 'https://models.example.com/docs');
    assert.equal(banner.fields.console, 'https://models.example.com/console');
    assert.deepEqual(banner.fields.models, [
      { model: 'glm-4.7', backend: 'openai-compatible', engineHost: 'gpu1.internal:8000' },
      { model: 'glm-ocr', backend: 'llama-cpp' },
    ]);
    assert.deepEqual(
      banner.fields.noConfiguration.map(({ feature }) => feature),
      ['chat completions', 'the tokenizer', 'web search', 'audio transcription', 'the web reader'],
    );
    assert.match(banner.message, /configured: glm-4\.7 -> openai-compatible at gpu1\.internal:8000, glm-ocr -> llama-cpp;/);
    const logged = JSON.stringify(banner);
    for (const secret of ['hunter2', 'operator', 't0ps3cret', 'sk-secret-key', '/models/private']) assert.ok(!logged.includes(secret), secret);
  });

  it('serve logs it once it listens, as one structured pino line', async () => {
    const config = join(dataDir, 'models.yaml');
    writeFileSync(config, 'models:\n  glm-4.7: { backend: openai-compatible, baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-never-logged" }\n');
    const server = await startServer({ MODEL_PLATFORM_DATA_DIR: join(dataDir, 'serve') }, ['--config', config]);
    try {
      // The banner follows the listening line; wait for it rather than for a fixed time.
      const deadline = Date.now() + 10_000;
      while (!server.output().includes('"docs"') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const lines = server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'));
      const banner = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => 'docs' in entry);
      assert.ok(banner !== undefined, server.output());
      assert.equal(banner['level'], 30);
      assert.equal(banner['address'], server.baseUrl);
      assert.equal(banner['docs'], `${server.baseUrl}/docs`);
      assert.deepEqual(banner['models'], [{ model: 'glm-4.7', backend: 'openai-compatible', engineHost: '127.0.0.1:9' }]);
      assert.match(
        String(banner['msg']),
        /with no configuration: chat completions \(glm-edge-1\.5b-chat\), the tokenizer \(glm-edge-1\.5b-chat\), web search, layout parsing \(glm-ocr\), audio transcription \(glm-asr-2512\), the web reader/,
      );
      assert.match(
        String(banner['msg']),
        /serving on http:\/\/127\.0\.0\.1:\d+ \(this machine only; HOST=0\.0\.0\.0 or --host 0\.0\.0\.0 serves the network\)/,
      );
      assert.ok(!server.output().includes('sk-never-logged'));
      const docs = await fetch(String(banner['docs']));
      assert.equal(docs.status, 200);
      await docs.arrayBuffer();
    } finally {
      await server.stop();
    }
  });
});
