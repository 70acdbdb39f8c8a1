// npm run bench:cli — how long the command line takes, one fresh process per run: `--help` and
// `--version` from the compiled build (bin/model-platform.js with a current dist/: what
// `npm run build` leaves) and from the TypeScript sources (the same entry through the module hooks,
// as a checkout with no build runs); the one-shot commands operators script (keys list,
// knowledge list, usage report, config check) from the build against SQLite in a fresh data
// folder, config check on a small config file; beside a bare `node -e ''` for the floor.
// Runs alternate; the median and the slowest of BENCH_ROUNDS are printed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledBuildIsCurrent } from '../../bin/compiled-build.mjs';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? '10');
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

if (!compiledBuildIsCurrent()) {
  console.error('dist/ is missing or older than src/: run `npm run build` first.');
  process.exit(1);
}

const build = [here('../../bin/model-platform.js')];
const sources = ['--import', here('../../bin/register-typescript.mjs'), here('../../src/cli/main.ts')];
const dataDir = mkdtempSync(join(tmpdir(), 'bench-cli-'));
const configFile = join(dataDir, 'platform.yaml');
writeFileSync(configFile, 'models:\n  glm-4.7: { backend: openai-compatible, baseUrl: "http://127.0.0.1:9/v1" }\n  glm-ocr: { backend: paddle-ocr }\n');
const environment = { ...process.env, MODEL_PLATFORM_DATA_DIR: dataDir, MODEL_PLATFORM_CONFIG: '', DATABASE_URL: '', REDIS_URL: '' };

const runs: Readonly<Record<string, readonly string[]>> = {
  '--help from the build': [...build, '--help'],
  '--help from the sources': [...sources, '--help'],
  '--version from the build': [...build, '--version'],
  '--version from the sources': [...sources, '--version'],
  'keys list': [...build, 'keys', 'list'],
  'knowledge list': [...build, 'knowledge', 'list'],
  'usage report': [...build, 'usage', 'report'],
  'config check': [...build, 'config', 'check', '--config', configFile],
  // The floor: Node starting and exiting with nothing to run.
  'bare node': ['-e', ''],
};

function runMs(argv: readonly string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, argv, { encoding: 'utf8', env: environment });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  return elapsed;
}

try {
  // The first run creates the database and its master key; what is timed is a command against both.
  runMs(runs['keys list'] ?? []);
  const samples = new Map<string, number[]>();
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, argv] of Object.entries(runs)) samples.set(name, [...(samples.get(name) ?? []), runMs(argv)]);
  }
  console.log(`node ${process.version}, ${rounds} rounds, wall time of one process (ms):`);
  for (const [name, times] of samples) {
    const sorted = [...times].sort((left, right) => left - right);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
    console.log(`  ${name.padEnd(28)} median ${median.toFixed(0).padStart(5)}   slowest ${(sorted.at(-1) ?? 0).toFixed(0).padStart(5)}`);
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
