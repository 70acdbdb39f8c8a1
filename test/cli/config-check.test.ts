import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../helpers/cli-process.ts';

describe('config check', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'config-check-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const secret = 'sk-live-0123456789SECRET';

  it('reports every mistake of a file at once, each naming model, key and backend kind, and never a value; serve refuses the same', async () => {
    const file = join(dataDir, 'three-mistakes.yaml');
    writeFileSync(
      file,
      [
        'models:',
        `  glm-4.7: { backend: openai-compatible, apiKey: "\${ENGINE_KEY}" }`,
        `  glm-4.6: { backend: zai, apikey: "${secret}" }`,
        `  cogview-4-250304: { backend: comfyui, baseUrl: "http://gpu2:8188", workflow: ./image.json, upstream_model: "${secret}" }`,
        '',
      ].join('\n'),
    );
    const expected = [
      `${file}: key 'models.glm-4.7.baseUrl': is required by backend openai-compatible`,
      `${file}: key 'models.glm-4.6.apikey': is not a setting of backend zai; did you mean 'apiKey'?`,
      `${file}: key 'models.cogview-4-250304.upstream_model': is not a setting of backend comfyui (known: baseUrl, workflow, apiKey, timeoutMs, maxResponseBytes, pollIntervalMs, maxConcurrency)`,
    ];
    const check = await runCli(['config', 'check', '--config', file], { ENGINE_KEY: secret });
    assert.equal(check.code, 1, check.stderr);
    assert.equal(check.stderr, `${expected.join('\n')}\n3 problems: not valid.\n`);
    assert.ok(!`${check.stdout}${check.stderr}`.includes('SECRET'), check.stderr);

    const serve = await runCli(['serve', '--config', file], { ENGINE_KEY: secret, MODEL_PLATFORM_DATA_DIR: join(dataDir, 'data'), PORT: '0' });
    assert.equal(serve.code, 1, serve.stderr);
    assert.ok(serve.stderr.includes(`Configuration error: ${expected.join('\n')}`), serve.stderr);
    assert.ok(!`${serve.stdout}${serve.stderr}`.includes('SECRET'), serve.stderr);
  });

  it('lists the models and their kinds of a valid file', async () => {
    const file = join(dataDir, 'valid.yaml');
    writeFileSync(file, 'models:\n  glm-4.6: { backend: zai, apiKey: "${ZAI_API_KEY}" }\n  glm-ocr: { backend: paddle-ocr }\n');
    const check = await runCli(['config', 'check', '--config', file], { ZAI_API_KEY: secret });
    assert.equal(check.code, 0, check.stderr);
    assert.equal(check.stdout, `${file}: valid, 2 model(s).\n  glm-4.6 -> zai\n  glm-ocr -> paddle-ocr\n`);
  });
});
