import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli-process.ts';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { freePort } from '../tasks/task-test-kit.ts';

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

describe('config check --probe', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'config-probe-'));
  const secret = 'sk-live-0123456789PROBESECRET';
  let engine: FakeOpenAiServer;
  let deadPort: number;
  before(async () => {
    engine = await startFakeOpenAiServer();
    engine.setDefault((request) =>
      request.path === '/v1/models' ? { kind: 'json', body: { object: 'list', data: [{ id: 'zai-org/GLM-4.7' }] } } : { kind: 'text', status: 404, body: '' },
    );
    deadPort = await freePort();
  });
  after(async () => {
    await engine.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function writeConfig(name: string, extraModels: readonly string[]): string {
    const file = join(dataDir, name);
    const alive = `{ name: gpu-a, backend: openai-compatible, baseUrl: "${engine.baseUrl}", apiKey: "\${ENGINE_KEY}", upstreamModel: zai-org/GLM-4.7 }`;
    const dead = `{ name: gpu-b, backend: openai-compatible, baseUrl: "http://127.0.0.1:${deadPort}/v1", apiKey: "\${ENGINE_KEY}", upstreamModel: zai-org/GLM-4.7 }`;
    writeFileSync(file, ['models:', `  glm-4.7: { deployments: [${alive}, ${dead}] }`, ...extraModels, ''].join('\n'));
    return file;
  }

  it('prints a row per deployment, the dead one not reachable, and exits 0 while each model has a reachable deployment', async () => {
    const file = writeConfig('one-dead.yaml', [`  glm-typo: { backend: openai-compatible, baseUrl: "${engine.baseUrl}", upstreamModel: zai-org/GLM-4.6 }`]);
    const check = await runCli(['config', 'check', '--probe', '--config', file], { ENGINE_KEY: secret });
    assert.equal(check.code, 0, `${check.stdout}\n${check.stderr}`);
    const rows = check.stdout.split('\n').filter((line) => /^(MODEL|glm-)/.test(line));
    assert.match(rows[0] ?? '', /^MODEL\s+DEPLOYMENT\s+BACKEND\s+REACHABLE\s+LATENCY\s+REPORTS$/);
    assert.match(rows[1] ?? '', /^glm-4\.7\s+gpu-a\s+openai-compatible\s+yes\s+\d+ ms\s+zai-org\/GLM-4\.7$/);
    assert.match(rows[2] ?? '', /^glm-4\.7\s+gpu-b\s+openai-compatible\s+no\s+\d+ ms\s+GET \/models: .*ECONNREFUSED/);
    assert.match(rows[3] ?? '', /^glm-typo\s+glm-typo#1\s+openai-compatible\s+yes\s+\d+ ms\s+zai-org\/GLM-4\.7$/);
    assert.match(check.stdout, /warning: glm-typo \/ glm-typo#1 does not report 'zai-org\/GLM-4\.6'/);
    assert.doesNotMatch(check.stdout, /warning: glm-4\.7/);
    assert.match(check.stdout, /Every model has a reachable deployment \(3 deployment\(s\) probed\)\./);
    assert.ok(!`${check.stdout}${check.stderr}`.includes('PROBESECRET'));
    assert.equal(engine.requests.filter((request) => request.headers.authorization === `Bearer ${secret}`).length, 1, 'the apiKey went to the engine');
  });

  it('exits 1 and names the model when none of its deployments answers', async () => {
    const file = writeConfig('all-dead.yaml', [
      `  glm-gone: { backend: openai-compatible, baseUrl: "http://127.0.0.1:${deadPort}/v1", apiKey: "\${ENGINE_KEY}" }`,
    ]);
    const check = await runCli(['config', 'check', '--probe', '--config', file], { ENGINE_KEY: secret });
    assert.equal(check.code, 1, `${check.stdout}\n${check.stderr}`);
    assert.match(check.stdout, /^glm-gone\s+glm-gone#1\s+openai-compatible\s+no\s+/m);
    assert.equal(check.stderr, 'No reachable deployment: glm-gone.\n');
    assert.ok(!`${check.stdout}${check.stderr}`.includes('PROBESECRET'));
  });

  it('leaves the engines alone without --probe', async () => {
    engine.reset();
    const check = await runCli(['config', 'check', '--config', writeConfig('no-probe.yaml', [])], { ENGINE_KEY: secret });
    assert.equal(check.code, 0, check.stderr);
    assert.match(
      check.stdout,
      new RegExp(
        `glm-4\\.7 -> 2 deployment\\(s\\): gpu-a \\(openai-compatible at 127\\.0\\.0\\.1:\\d+\\), gpu-b \\(openai-compatible at 127\\.0\\.0\\.1:${deadPort}\\)`,
      ),
    );
    assert.equal(engine.requests.length, 0);
  });

  it('refuses, without --probe, an agent naming a model not in the catalog and a local modelPath that is not there; an alias and an hf:// file pass', async () => {
    const file = join(dataDir, 'references.yaml');
    writeFileSync(
      file,
      [
        'models:',
        '  local-chat: { backend: llama-cpp, modelPath: ./models/missing.gguf }',
        '  hub-chat: { backend: llama-cpp, modelPath: hf://tiny-org/tiny-gguf/tiny.gguf }',
        '  glm-4.7: { alias: glm-edge-1.5b-chat }',
        'agents:',
        '  general_translation: { model: glm-4.8 }',
        '  slides_glm_agent: { model: glm-4.7 }',
        '',
      ].join('\n'),
    );
    const check = await runCli(['config', 'check', '--config', file], {});
    assert.equal(check.code, 1, check.stderr);
    const lines = check.stderr.trim().split('\n');
    assert.match(lines[0] ?? '', /key 'agents\.general_translation\.model': names 'glm-4\.8', which is not a model of the catalog \(.*glm-edge-1\.5b-chat.*\)/);
    assert.equal(
      lines[1],
      `${file}: key 'models.local-chat.modelPath': names ${join(dataDir, 'models', 'missing.gguf')}, which does not exist (an hf://owner/repo/file URI is fetched from the hub instead)`,
    );
    assert.equal(lines[2], '2 problems: not valid.');
  });

  it('refuses an alias naming a model that does not exist', async () => {
    const file = join(dataDir, 'alias.yaml');
    writeFileSync(file, 'models:\n  glm-4.7: { alias: glm-edge-1.5b-chta }\n');
    const check = await runCli(['config', 'check', '--config', file], {});
    assert.equal(check.code, 1, check.stderr);
    assert.match(check.stderr, /key 'models\.glm-4\.7\.alias': must be one of .*; did you mean 'glm-edge-1\.5b-chat'\?/);
  });
});
