// npm run bench:cli — how long `model-platform --help` and `--version` take, from the compiled
// build (bin/model-platform.js with a current dist/: what `npm run build` leaves) and from the
// TypeScript sources (the same entry through the module hooks, as a checkout with no build runs),
// beside a bare `node -e ''` for the floor.
// Each is a fresh process, run alternately; the median and the slowest of BENCH_ROUNDS are printed.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compiledBuildIsCurrent } from '../../bin/compiled-build.mjs';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? '10');
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

if (!compiledBuildIsCurrent()) {
  console.error('dist/ is missing or older than src/: run `npm run build` first.');
  process.exit(1);
}

const ways = {
  build: [here('../../bin/model-platform.js')],
  sources: ['--import', here('../../bin/register-typescript.mjs'), here('../../src/cli/main.ts')],
  // The floor: Node starting and exiting with nothing to run (after --, the flag is the empty script's).
  'bare node': ['-e', '', '--'],
} as const;

function runMs(entry: readonly string[], flag: string): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, [...entry, flag], { encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`${entry.join(' ')} ${flag} exited ${result.status}: ${result.stderr}`);
  return elapsed;
}

const samples = new Map<string, number[]>();
for (let round = 0; round < rounds; round += 1) {
  for (const flag of ['--help', '--version']) {
    for (const [way, entry] of Object.entries(ways)) {
      const key = `${flag} from the ${way}`;
      samples.set(key, [...(samples.get(key) ?? []), runMs(entry, flag)]);
    }
  }
}
console.log(`node ${process.version}, ${rounds} rounds, wall time of one process (ms):`);
for (const [key, times] of samples) {
  const sorted = [...times].sort((left, right) => left - right);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  console.log(`  ${key.padEnd(28)} median ${median.toFixed(0).padStart(5)}   slowest ${(sorted.at(-1) ?? 0).toFixed(0).padStart(5)}`);
}
