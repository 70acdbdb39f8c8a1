import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const helper = fileURLToPath(new URL('../../src/cli/exit-after-shutdown.ts', import.meta.url));
const registerTypeScript = fileURLToPath(new URL('../../bin/register-typescript.mjs', import.meta.url));

/** Runs `script` (an ES module that imports the helper as `exitAfterShutdown`) in a process of its own. */
function run(script: string): Promise<{ code: number | null; output: string; ms: number }> {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    ['--import', registerTypeScript, '--input-type=module', '-e', `import { exitAfterShutdown } from ${JSON.stringify(helper)};\n${script}`],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output, ms: Date.now() - started })));
}

describe('the end of serve and worker', () => {
  it('exits at once with the code when nothing is left open', async () => {
    const { code, output, ms } = await run('process.exitCode = exitAfterShutdown(0, (message) => console.log(message), 5000);');
    assert.equal(code, 0);
    assert.equal(output, '');
    assert.ok(ms < 4000, `took ${ms} ms`);
  });

  it('exits after the grace time when a handle is left open, naming it', async () => {
    const { code, output } = await run('setInterval(() => undefined, 1000);\nprocess.exitCode = exitAfterShutdown(3, (message) => console.log(message), 300);');
    assert.equal(code, 3);
    assert.match(output, /shut down, but still open after 300 ms: .*Timeout.*; exiting/);
  });
});
