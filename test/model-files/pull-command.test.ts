import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli-process.ts';
import { startFakeHub, type FakeHub } from '../helpers/fake-hugging-face-hub.ts';

const weights = randomBytes(256 * 1024);

describe('model-platform pull and models list', () => {
  let hub: FakeHub;
  let directory: string;
  let environment: NodeJS.ProcessEnv;
  before(async () => {
    hub = await startFakeHub({ files: [{ repo: 'tiny-org/tiny-gguf', file: 'tiny.gguf', bytes: weights }] });
    directory = mkdtempSync(join(tmpdir(), 'pull-command-'));
    const config = join(directory, 'config.yaml');
    writeFileSync(config, 'models:\n  tiny-chat: { backend: llama-cpp, modelPath: hf://tiny-org/tiny-gguf/tiny.gguf }\n');
    environment = { HF_ENDPOINT: hub.endpoint, MODEL_PLATFORM_DATA_DIR: join(directory, 'data'), MODEL_PLATFORM_CONFIG: config };
  });
  after(async () => {
    await hub.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('lists the file as not downloaded, pulls it by model name with progress, then lists it with its size', async () => {
    const before = await runCli(['models', 'list'], environment);
    assert.equal(before.code, 0, before.stderr);
    assert.match(before.stdout, /tiny-chat {2}hf:\/\/tiny-org\/tiny-gguf\/tiny\.gguf@main {2}not downloaded \(model-platform pull tiny-chat\)/);
    const pulled = await runCli(['pull', 'tiny-chat'], environment);
    assert.equal(pulled.code, 0, pulled.stderr);
    assert.match(pulled.stderr, /hf:\/\/tiny-org\/tiny-gguf\/tiny\.gguf: 100% of 256 KB/);
    const path = /ready at (.+)$/m.exec(pulled.stdout)?.[1] ?? '';
    assert.deepEqual(readFileSync(path), weights);
    assert.ok(path.startsWith(join(directory, 'data', 'models')));
    const listed = await runCli(['models', 'list'], environment);
    assert.match(listed.stdout, /tiny-chat {2}hf:\/\/tiny-org\/tiny-gguf\/tiny\.gguf@main {2}256 KB/);
  });

  it('explains a 404 in one line naming the URI, exit code 1', async () => {
    const result = await runCli(['pull', 'hf://tiny-org/tiny-gguf/other.gguf'], environment);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr.trim().split('\n').at(-1),
      'hf://tiny-org/tiny-gguf/other.gguf@main: not found on the hub (HTTP 404); check the owner, repository, file name and revision',
    );
  });

  it('refuses a name that is neither a model of the catalog nor an hf:// URI', async () => {
    const result = await runCli(['pull', 'nothing-here'], environment);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /'nothing-here' is not a model of the catalog \(glm-edge-1\.5b-chat, .*tiny-chat\) nor an hf:\/\/ URI/);
  });
});
