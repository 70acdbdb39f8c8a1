import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compiledBuildIsCurrent } from '../../bin/compiled-build.mjs';
import { runCli, startServer } from '../helpers/cli-process.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const packageVersion = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const bootstrap = 'abcdefabcdefabcdefabcdefabcdef56.CompiledSecret12';

/**
 * The package as an image or an install has it: bin/, package.json and the compiled dist/, but no
 * src/, so whatever runs can only be the build. The checkout's dist/ is used when current (`npm
 * run build` left it); otherwise the sources are compiled into the temporary package (tsc, about a
 * minute), never into the checkout, whose dist/ other processes may be running.
 */
async function compiledPackage(folder: string): Promise<string> {
  const packageDir = join(folder, 'package');
  mkdirSync(packageDir);
  cpSync(join(root, 'bin'), join(packageDir, 'bin'), { recursive: true });
  cpSync(join(root, 'package.json'), join(packageDir, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(packageDir, 'node_modules'), 'dir');
  if (compiledBuildIsCurrent(root)) {
    symlinkSync(join(root, 'dist'), join(packageDir, 'dist'), 'dir');
  } else {
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', join(packageDir, 'dist')];
    await promisify(execFile)(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 }).catch((error: { stdout?: string }) => {
      throw new Error(`the build failed (tsc writes nothing when the sources do not type-check):\n${error.stdout ?? String(error)}`);
    });
  }
  return join(packageDir, 'bin', 'model-platform.js');
}

describe('the compiled build (npm run build)', { timeout: 600_000 }, () => {
  let folder: string;
  let cli: string;
  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'model-platform-build-'));
    cli = await compiledPackage(folder);
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('bin/model-platform.js runs it: --version, --help in well under a second, refusals exit 2', async () => {
    const version = await runCli(['--version'], {}, cli);
    assert.equal(version.code, 0, version.stderr);
    assert.equal(version.stdout, `model-platform ${packageVersion}\n`);

    const started = performance.now();
    const help = await runCli(['--help'], {}, cli);
    const elapsedMs = performance.now() - started;
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: model-platform <command>/);
    // Loosely: ~0.1 s on an idle machine (BENCHMARKS.md "bench:cli"); this one may be shared.
    assert.ok(elapsedMs < 5_000, `--help took ${elapsedMs.toFixed(0)} ms`);

    const refused = await runCli(['worker', '--frob'], {}, cli);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /^model-platform: worker takes no option '--frob'\n\nUsage: model-platform worker/);
  });

  it('serves from it, worker threads included: a call is answered and its usage written by the ledger thread', async () => {
    const environment = { MODEL_PLATFORM_DATA_DIR: join(folder, 'data'), MODEL_PLATFORM_BOOTSTRAP_KEY: bootstrap };
    const server = await startServer(environment, [], cli);
    try {
      const response = await fetch(`${server.baseUrl}/paas/v4/web_search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bootstrap}`, 'content-type': 'application/json' },
        body: JSON.stringify({ search_engine: 'search-prime', search_query: 'kayak' }),
      });
      assert.equal(response.status, 200, await response.clone().text());
      await response.arrayBuffer();
    } finally {
      assert.equal(await server.stop(), 0);
    }
    // Written on shutdown at the latest, by the SQLite ledger's worker thread (a compiled module of its own).
    const report = await runCli(['usage', 'report', '--by', 'model', '--format', 'csv'], environment, cli);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /^search-prime,1,/m);
  });
});
