import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { createTaskService } from '../../src/tasks/create-task-service.ts';
import { startServer, type ServerProcess } from '../helpers/cli-process.ts';
import { waitFor } from './task-test-kit.ts';

const cli = fileURLToPath(new URL('../../bin/model-platform.js', import.meta.url));
const keyPattern = /\b([0-9a-f]{32})\.([A-Za-z0-9]{16})\b/;

describe('serve --no-workers with a separate `model-platform worker`', () => {
  let dataDir: string;
  let server: ServerProcess;
  let database: Database;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'model-platform-worker-'));
    server = await startServer({ MODEL_PLATFORM_DATA_DIR: dataDir }, ['--no-workers']);
    database = openDatabase({ databaseUrl: undefined, dataDir });
  });
  after(async () => {
    await server.stop();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the API node leaves tasks queued; the worker process runs them through the media handlers; SIGTERM stops it cleanly', async () => {
    const key = keyPattern.exec(server.output());
    assert.ok(key?.[1] !== undefined, server.output());
    const authorization = `Bearer ${key[0]}`;
    // Submitted as the images route would: the API node only writes the row.
    const submitter = createTaskService({ database, handlers: [], log: (message, error) => assert.fail(`${message} ${String(error)}`) });
    const task = await submitter.submit({
      kind: 'image',
      ownerKeyId: key[1],
      model: 'model-with-no-engine',
      requestId: 'worker-test-1',
      request: { model: 'model-with-no-engine', prompt: 'a cat', width: 1024, height: 1024, quality: 'hd' },
    });
    const read = async () => {
      const response = await fetch(`${server.baseUrl}/paas/v4/async-result/${task.id}`, { headers: { authorization } });
      return (await response.json()) as { task_status: string; error?: { code: string; message: string } };
    };
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.equal((await read()).task_status, 'PROCESSING', 'serve --no-workers runs no task');

    const worker = spawn(process.execPath, [cli, 'worker'], { env: { PATH: process.env['PATH'], MODEL_PLATFORM_DATA_DIR: dataDir } });
    let output = '';
    worker.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    worker.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => worker.once('exit', resolve));
    try {
      const failed = await waitFor(read, (body) => body.task_status !== 'PROCESSING', 20_000);
      // No engine serves this model: the media handler fails the task with the platform's reason.
      assert.equal(failed.task_status, 'FAIL');
      assert.match(failed.error?.code ?? '', /^\d+$/);
      assert.ok((failed.error?.message ?? '').length > 0);
      assert.match(output, /Task worker started: embedded queue on sqlite, up to 4 tasks at once/);
    } finally {
      worker.kill('SIGTERM');
    }
    assert.equal(await exited, 0, output);
    assert.match(output, /SIGTERM: stopping/);
  });
});
