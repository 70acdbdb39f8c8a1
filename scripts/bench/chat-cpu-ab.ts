// The platform's own CPU time per chat call against the fake engine, for this checkout (or
// BENCH_TREE) and, with BENCH_AB_TREE, another checkout of the platform side by side (an A/B of a change):
//   BENCH_AB_TREE=/tmp/before node --import ./bin/register-typescript.mjs scripts/bench/chat-cpu-ab.ts
// Wall-clock req/s of short runs on a shared host say little; CPU time per call (utime + stime of
// the serve process over the round, from /proc) is steadier. Rounds alternate the platforms and
// reverse their order every other round. Then each platform's bytes allocated per call, from V8's
// own count (--trace-gc-nvp: `allocated` since the last collection, summed over one long run of
// calls, so a collection's boundary moves the figure little): unlike CPU time it does not move
// with the host's load, and what a platform allocates its collector pays for, partly on V8's
// helper threads. Knobs: BENCH_CONCURRENCY (64), BENCH_REQUESTS (per round, 2000), BENCH_ROUNDS
// (6), BENCH_WARMUP (per platform, 5000), BENCH_ALLOC_REQUESTS (40000), BENCH_STREAM=1 (streamed
// calls), BENCH_CPU_PROF_DIR (each serve process writes a V8 CPU profile there when it stops),
// BENCH_PROXY=1 (a bare Node proxy beside them, measured the same way: the floor).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuTimes, freePort, start, stopAll, waitForHealth } from './bench-processes.ts';
import { median, runLoad, type Target } from './load.ts';

const concurrency = Number(process.env['BENCH_CONCURRENCY'] ?? '64');
const requestsPerRound = Number(process.env['BENCH_REQUESTS'] ?? '2000');
const rounds = Number(process.env['BENCH_ROUNDS'] ?? '6');
const warmUpRequests = Number(process.env['BENCH_WARMUP'] ?? '5000');
const allocationRequests = Number(process.env['BENCH_ALLOC_REQUESTS'] ?? '40000');
/**
 * What a sync call may allocate, all of the serve process's threads together (the ledger's
 * thread writes a row per call). A regression guard that the host's load does not move: each
 * KiB a call allocates is work for the collector at every call.
 */
const syncAllocationBudgetKiB = 30;
const streamed = process.env['BENCH_STREAM'] === '1';
const profileDir = process.env['BENCH_CPU_PROF_DIR'];
/** BENCH_PROXY=1: also a bare Node proxy (pass-through-proxy.ts), the floor under any Node hop's CPU and allocation. */
const withProxy = process.env['BENCH_PROXY'] === '1';
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const key = 'abcdefabcdefabcdefabcdefabcdef99.BenchSecret00001';

interface Platform {
  readonly label: string;
  readonly pid: number;
  readonly child: ChildProcess;
  readonly target: Target;
  readonly agent: Agent;
  readonly dataDir: string | undefined;
  readonly cpuMsPerRound: number[];
  /** The fake engine's CPU time while this platform's round ran (how the platform calls it costs the engine too). */
  readonly engineCpuMsPerRound: number[];
  /** Bytes V8 allocated in the serve process so far, as its collections report them. */
  readonly allocated: { bytes: number };
}

async function startPlatform(label: string, tree: string, engineUrl: string): Promise<Platform> {
  const dataDir = mkdtempSync(join(tmpdir(), `chat-cpu-${label}-`));
  writeFileSync(join(dataDir, 'config.yaml'), `models:\n  glm-4.7: { backend: openai-compatible, baseUrl: "${engineUrl}" }\n`);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  return measured(label, [join(tree, 'bin/model-platform.js'), 'serve'], {
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      MODEL_PLATFORM_DATA_DIR: dataDir,
      MODEL_PLATFORM_CONFIG: join(dataDir, 'config.yaml'),
      MODEL_PLATFORM_BOOTSTRAP_KEY: key,
      LOG_LEVEL: 'warn',
    },
    dataDir,
    target: { name: label, url: `${origin}/paas/v4/chat/completions`, headers: { authorization: `Bearer ${key}` } },
    ready: () => waitForHealth(origin),
  });
}

/** The floor: a bare Node pass-through proxy in front of the same engine, measured as the platforms are. */
async function startProxy(engineUrl: string): Promise<Platform> {
  let origin = '';
  let announced: (() => void) | undefined;
  const ready = new Promise<void>((resolve) => (announced = resolve));
  return measured('proxy', ['--import', here('../../bin/register-typescript.mjs'), here('./pass-through-proxy.ts')], {
    env: { TARGET: engineUrl },
    dataDir: undefined,
    get target() {
      return { name: 'proxy', url: `${origin}/chat/completions`, headers: {} };
    },
    ready: () => ready,
    onLine: (line) => {
      if (origin === '' && line.startsWith('http://')) {
        origin = line.trim();
        announced?.();
      }
    },
  });
}

interface Measured {
  readonly env: NodeJS.ProcessEnv;
  readonly dataDir: string | undefined;
  readonly target: Target;
  readonly ready: () => Promise<void>;
  readonly onLine?: (line: string) => void;
}

/** Spawns a server with V8's collection trace (and a CPU profile when asked) and counts what it allocates. */
async function measured(label: string, args: readonly string[], how: Measured): Promise<Platform> {
  const nodeFlags = ['--trace-gc', '--trace-gc-nvp', ...(profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(resolve(profileDir), label)}`])];
  if (profileDir !== undefined) mkdirSync(join(resolve(profileDir), label), { recursive: true });
  const child = spawn(process.execPath, [...nodeFlags, ...args], { env: { ...process.env, ...how.env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const allocated = { bytes: 0 };
  // One line per collection; `allocated=` counts the bytes allocated since the one before.
  if (child.stdout !== null) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = / allocated=(\d+)/.exec(line);
      if (match !== null) allocated.bytes += Number(match[1]);
      else how.onLine?.(line);
    });
  }
  await how.ready();
  return {
    label,
    pid: child.pid ?? 0,
    child,
    target: how.target,
    agent: new Agent({ keepAlive: true, maxSockets: concurrency }),
    dataDir: how.dataDir,
    cpuMsPerRound: [],
    engineCpuMsPerRound: [],
    allocated,
  };
}

/** Ends the run when a round hangs (an engine or platform process gone): the load has no timeout of its own. */
function watchdog(): () => void {
  let timer: NodeJS.Timeout | undefined;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      console.error('no round finished within 3 minutes: stopping');
      stopAll();
      process.exit(1);
    }, 180_000);
    timer.unref();
  };
}

async function main(): Promise<void> {
  const alive = watchdog();
  alive();
  const engine = start(
    process.execPath,
    ['--import', here('../../bin/register-typescript.mjs'), here('./fake-engine-process.ts')],
    { CHUNKS: '100' },
    /(http:\/\/\S+\/v1)/,
  );
  const engineUrl = await engine.match;
  const platforms = [await startPlatform('this', resolve(process.env['BENCH_TREE'] ?? here('../..')), engineUrl)];
  const other = process.env['BENCH_AB_TREE'];
  if (other !== undefined) platforms.push(await startPlatform('other', resolve(other), engineUrl));
  if (withProxy) platforms.push(await startProxy(engineUrl));
  const body = JSON.stringify({ model: 'glm-4.7', messages: [{ role: 'user', content: 'Hello' }], ...(streamed ? { stream: true } : {}) });
  for (const platform of platforms) {
    await runLoad(platform.target, body, concurrency, warmUpRequests, platform.agent);
    alive();
  }
  console.log(
    `${streamed ? 'streamed' : 'sync'} calls at concurrency ${concurrency}, ${rounds} rounds of ${requestsPerRound}; CPU µs per call of each serve process`,
  );
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? platforms : [...platforms].reverse();
    const line: string[] = [];
    for (const platform of order) {
      const before = cpuTimes([platform.pid, engine.pid]);
      const load = await runLoad(platform.target, body, concurrency, requestsPerRound, platform.agent);
      const after = cpuTimes([platform.pid, engine.pid]);
      const cpuMs = (after.get(platform.pid) ?? 0) - (before.get(platform.pid) ?? 0);
      const engineCpuMs = (after.get(engine.pid) ?? 0) - (before.get(engine.pid) ?? 0);
      platform.cpuMsPerRound.push(cpuMs);
      platform.engineCpuMsPerRound.push(engineCpuMs);
      alive();
      line.push(
        `${platform.label} ${((cpuMs * 1000) / requestsPerRound).toFixed(0)} µs, engine ${((engineCpuMs * 1000) / requestsPerRound).toFixed(0)} µs (${load.requestsPerSecond.toFixed(0)} req/s)`,
      );
    }
    console.log(`round ${round + 1}: ${line.join(', ')}`);
  }
  const perCall = (platform: Platform) => (median(platform.cpuMsPerRound) * 1000) / requestsPerRound;
  const enginePerCall = (platform: Platform) => (median(platform.engineCpuMsPerRound) * 1000) / requestsPerRound;
  for (const platform of platforms) {
    console.log(
      `${platform.label}: median ${perCall(platform).toFixed(0)} µs per call (the engine meanwhile ${enginePerCall(platform).toFixed(0)} µs per call)`,
    );
  }
  const [first] = platforms;
  for (const second of platforms.slice(1)) {
    if (first === undefined) break;
    // Each round's two figures were taken seconds apart, on about the same machine: their ratio is steadier than the medians'.
    const ratios = first.cpuMsPerRound.map((cpuMs, round) => cpuMs / (second.cpuMsPerRound[round] ?? Number.NaN));
    console.log(`this / ${second.label}: medians ${(perCall(first) / perCall(second)).toFixed(3)}, median of the rounds' ratios ${median(ratios).toFixed(3)}`);
  }
  for (const platform of platforms) {
    const before = platform.allocated.bytes;
    await runLoad(platform.target, body, concurrency, allocationRequests, platform.agent);
    alive();
    // The collections during the load report a moment later, through the pipe.
    await delay(200);
    const perCallKiB = (platform.allocated.bytes - before) / allocationRequests / 1024;
    const budget =
      streamed || platform.label === 'proxy'
        ? ''
        : `; budget <= ${syncAllocationBudgetKiB} KiB a sync call: ${perCallKiB <= syncAllocationBudgetKiB ? 'within' : 'NOT within'}`;
    console.log(`${platform.label}: ${perCallKiB.toFixed(1)} KiB allocated per call (${allocationRequests} calls)${budget}`);
  }
  for (const platform of platforms) {
    platform.agent.destroy();
    const exited = new Promise((done) => platform.child.once('exit', done));
    platform.child.kill('SIGTERM');
    await exited;
    if (platform.dataDir !== undefined) rmSync(platform.dataDir, { recursive: true, force: true });
  }
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => {
    stopAll();
  });
