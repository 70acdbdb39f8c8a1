import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { freePort } from '../tasks/task-test-kit.ts';
import { parseScrape, valueOf } from './prometheus-scrape.ts';

const cli = fileURLToPath(new URL('../../bin/model-platform.js', import.meta.url));

describe('model-platform worker --port', () => {
  it('serves /healthz, /readyz and /metrics next to its task workers, and stops cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'model-platform-worker-ops-'));
    const port = await freePort();
    const child = spawn(process.execPath, [cli, 'worker', '--port', String(port), '--host', '127.0.0.1'], {
      env: { PATH: process.env['PATH'], MODEL_PLATFORM_DATA_DIR: dataDir },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        const check = () => (output.includes(`Health and metrics on port ${port}`) ? resolve() : undefined);
        child.stdout.on('data', check);
        void exited.then((code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
      });
      const origin = `http://127.0.0.1:${port}`;
      assert.equal((await fetch(`${origin}/healthz`)).status, 200);
      assert.equal((await fetch(`${origin}/readyz`)).status, 200);
      const scrape = parseScrape(await (await fetch(`${origin}/metrics`)).text());
      assert.ok((valueOf(scrape, 'model_platform_process_resident_memory_bytes', {}) ?? 0) > 0);
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
