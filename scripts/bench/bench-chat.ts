// npm run bench:chat — chat completions overhead against a fake engine on loopback, in one run:
// (a) straight to the engine, (b) a minimal Node pass-through proxy, (c) model-platform; req/s, and
// the CPU each process spends per call (the steadier figure on a shared host).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, percentile, post, runLoad, type LoadResult, type Target } from './load.ts';
import { cpuTimes, waitForHealth } from './bench-processes.ts';

// Long enough that a level is not decided by the moments after new connections appear: V8
// re-optimises code then (new sockets, new shapes), more of it in the platform than in the proxy.
// At 3000 requests (well under a second a target) run-to-run spread was about ±8 points.
// Concurrency 16 and 64 get 40000: with 10000 in 5 rounds a round there lasted 0.2-0.3 s, and one
// round's ratio to (b) swung 60-98% within a level.
const requestsPerLevel = (concurrency: number) => Number(process.env['BENCH_REQUESTS'] ?? (concurrency === 1 ? '10000' : '40000'));
// A level's requests are sent in rounds, the targets taking turns (order reversed every other
// round), and the ratio to (b) is the median of the rounds' own ratios: the machine's speed drifts
// over the seconds a level takes (other tenants of the host), and a target measured a few seconds
// after another meets a different machine.
const rounds = Number(process.env['BENCH_ROUNDS'] ?? '8');
// Per target and level, before the measured requests: from a fresh start at concurrency 1 the
// platform's CPU per request falls over its first ~4000 requests (to less than half), the bare
// route's and the proxy's over ~3000; at concurrency 16, right after concurrency 1, over its first
// 6000-8000. 10000 covers both.
const warmUpRequests = Number(process.env['BENCH_WARMUP'] ?? '10000');
const rssRequests = Number(process.env['BENCH_RSS_REQUESTS'] ?? '10000');
const rssRounds = Number(process.env['BENCH_RSS_ROUNDS'] ?? '8');
const streamChunks = 100;
/** BENCH_FLOOR=1: also (d), a bare Fastify route doing only the call's own work (bare-route-process.ts). */
const withFloor = process.env['BENCH_FLOOR'] === '1';
/** BENCH_AB_TREE=<another checkout>: also (e), that checkout's platform on the same engine, taking turns with the others (an A/B of a change). */
const abTree = process.env['BENCH_AB_TREE'];
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const children: ChildProcess[] = [];

/** Starts a process and resolves with the first stdout line matching `pattern`. */
function start(args: string[], environment: NodeJS.ProcessEnv, pattern: RegExp): Promise<{ child: ChildProcess; match: string }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...environment }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = pattern.exec(output)?.[1];
      if (found !== undefined) resolve({ child, match: found });
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${output}`)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function rssMegabytes(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const key = 'abcdefabcdefabcdefabcdefabcdef99.BenchSecret00001';
const dataDirs: string[] = [];

/** Starts `serve` from the checkout at `tree` with one model on the fake engine. */
async function startPlatform(tree: string, engineUrl: string, name = '(c) model-platform'): Promise<{ child: ChildProcess; target: Target }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-chat-'));
  dataDirs.push(dataDir);
  writeFileSync(join(dataDir, 'config.yaml'), `models:\n  glm-4.7: { backend: openai-compatible, baseUrl: "${engineUrl}" }\n`);
  // Request logs are off (warn level) so the run measures the request path, not the log sink.
  const port = await freePort();
  const { child } = await start(
    [join(tree, 'bin/model-platform.js'), 'serve'],
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      MODEL_PLATFORM_DATA_DIR: dataDir,
      MODEL_PLATFORM_CONFIG: join(dataDir, 'config.yaml'),
      MODEL_PLATFORM_BOOTSTRAP_KEY: key,
      LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
    },
    /(Created the bootstrap API key)/,
  );
  const origin = `http://127.0.0.1:${port}`;
  await waitForHealth(origin);
  return { child, target: { name, url: `${origin}/paas/v4/chat/completions`, headers: { authorization: `Bearer ${key}` } } };
}

async function main(): Promise<void> {
  // Every process runs its TypeScript the way the platform's binary does (no __name wrappers).
  const tsx = ['--import', here('../../bin/register-typescript.mjs')];
  const engine = await start([...tsx, here('./fake-engine-process.ts')], { CHUNKS: String(streamChunks) }, /(http:\/\/\S+\/v1)/);
  const proxy = await start([...tsx, here('./pass-through-proxy.ts')], { TARGET: engine.match }, /(http:\/\/\S+)/);
  const platform = await startPlatform(here('../..'), engine.match);
  const targets: Target[] = [
    { name: '(a) engine', url: `${engine.match}/chat/completions`, headers: {} },
    { name: '(b) node proxy', url: `${proxy.match}/chat/completions`, headers: {} },
    platform.target,
  ];
  const floorTargets: Target[] = [];
  if (withFloor) {
    const floor = await start([...tsx, here('./bare-route-process.ts')], { TARGET: engine.match }, /(http:\/\/\S+)/);
    floorTargets.push({ name: '(d) bare route', url: `${floor.match}/chat/completions`, headers: {} });
  }
  const abPlatform = abTree === undefined ? undefined : await startPlatform(abTree, engine.match, '(e) BENCH_AB_TREE');
  const abTargets = abPlatform === undefined ? [] : [abPlatform.target];
  /** Each target's process, for its CPU time: on a shared host the CPU a call costs moves far less than req/s. */
  const pids = new Map<string, number | undefined>([
    ['(a) engine', engine.child.pid],
    ['(b) node proxy', proxy.child.pid],
    [platform.target.name, platform.child.pid],
    ...(abPlatform === undefined ? [] : [[abPlatform.target.name, abPlatform.child.pid] as const]),
  ]);
  const body = JSON.stringify({ model: 'glm-4.7', messages: [{ role: 'user', content: 'Hello' }] });
  const streamBody = JSON.stringify({ model: 'glm-4.7', messages: [{ role: 'user', content: 'Hello' }], stream: true });

  console.log(
    `Non-streamed, ${requestsPerLevel(1)} requests at concurrency 1 and ${requestsPerLevel(16)} at 16 and 64, in ${rounds} rounds (medians of the rounds; vs (b): the median of the rounds' ratios)`,
  );
  console.log('concurrency | target             | req/s   | p50 ms | p99 ms | req/s vs (b) | CPU µs/req, (b)/it | each round vs (b)');
  const results = new Map<string, LoadResult>();
  const allTargets = [...targets, ...floorTargets, ...abTargets];
  for (const concurrency of [1, 16, 64]) {
    // Each level after a warm-up at that concurrency (JIT, sockets): V8 settles a server's code for
    // a load pattern over thousands of requests, and a level measured right after another starts
    // with its code being recompiled. Each target keeps its
    // connections through the level.
    const agents = new Map(allTargets.map((target) => [target.name, new Agent({ keepAlive: true, maxSockets: concurrency })]));
    for (const target of allTargets) await runLoad(target, body, concurrency, warmUpRequests, agents.get(target.name));
    const perRound = new Map<string, LoadResult[]>(allTargets.map((target) => [target.name, []]));
    /** CPU ms of the target's own process over the level's rounds (none for the bare route). */
    const cpuMs = new Map<string, number>();
    for (let round = 0; round < rounds; round += 1) {
      for (const target of round % 2 === 0 ? allTargets : [...allTargets].reverse()) {
        const pid = pids.get(target.name);
        const before = pid === undefined ? undefined : cpuTimes([pid]).get(pid);
        perRound.get(target.name)?.push(await runLoad(target, body, concurrency, Math.ceil(requestsPerLevel(concurrency) / rounds), agents.get(target.name)));
        const after = pid === undefined ? undefined : cpuTimes([pid]).get(pid);
        if (before !== undefined && after !== undefined) cpuMs.set(target.name, (cpuMs.get(target.name) ?? 0) + after - before);
      }
    }
    const requests = Math.ceil(requestsPerLevel(concurrency) / rounds) * rounds;
    const cpuPerRequest = (name: string) => ((cpuMs.get(name) ?? Number.NaN) * 1000) / requests;
    for (const agent of agents.values()) agent.destroy();
    const baseline = perRound.get('(b) node proxy') ?? [];
    for (const target of allTargets) {
      const runs = perRound.get(target.name) ?? [];
      const result = {
        requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
        p50Ms: median(runs.map((run) => run.p50Ms)),
        p99Ms: median(runs.map((run) => run.p99Ms)),
      };
      results.set(`${target.name}@${concurrency}`, result);
      const ratios = runs.map((run, round) => run.requestsPerSecond / (baseline[round]?.requestsPerSecond ?? Number.NaN));
      const ratio = target.name.startsWith('(a)') ? '' : `${(100 * median(ratios)).toFixed(0)}%`;
      const each = target.name.startsWith('(a)') ? '' : ratios.map((value) => `${(100 * value).toFixed(0)}%`).join(' ');
      const cpu = cpuPerRequest(target.name);
      const cpuRatio = target.name.startsWith('(a)') || Number.isNaN(cpu) ? '' : `, ${(100 * (cpuPerRequest('(b) node proxy') / cpu)).toFixed(0)}%`;
      console.log(
        `${String(concurrency).padStart(11)} | ${target.name.padEnd(18)} | ${result.requestsPerSecond.toFixed(0).padStart(7)} | ${result.p50Ms.toFixed(2).padStart(6)} | ${result.p99Ms.toFixed(2).padStart(6)} | ${ratio.padStart(12)} | ${`${Number.isNaN(cpu) ? '' : cpu.toFixed(0)}${cpuRatio}`.padStart(18)} | ${each}`,
      );
    }
  }
  const added = (results.get('(c) model-platform@1')?.p50Ms ?? 0) - (results.get('(a) engine@1')?.p50Ms ?? 0);
  console.log(`p50 added latency at concurrency 1, (c) - (a): ${added.toFixed(3)} ms (target <= 1 ms)`);

  console.log(`\nStreamed, ${streamChunks} content chunks per answer, 300 sequential streams`);
  console.log('target             | TTFB p50 ms | total p50 ms | per-chunk overhead vs (a) µs');
  let directTotal = 0;
  for (const target of [...targets, ...abTargets]) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const firstBytes: number[] = [];
    const totals: number[] = [];
    for (let index = 0; index < 300; index += 1) {
      const timing = await post(target, streamBody, agent);
      firstBytes.push(timing.firstByteMs);
      totals.push(timing.totalMs);
    }
    agent.destroy();
    firstBytes.sort((left, right) => left - right);
    totals.sort((left, right) => left - right);
    const total = percentile(totals, 0.5);
    if (target.name.startsWith('(a)')) directTotal = total;
    const perChunk = ((total - directTotal) * 1000) / streamChunks;
    console.log(
      `${target.name.padEnd(18)} | ${percentile(firstBytes, 0.5).toFixed(2).padStart(11)} | ${total.toFixed(2).padStart(12)} | ${perChunk.toFixed(1)}`,
    );
  }

  // Several rounds: the first ones grow the heap to its working size (V8 collects the old
  // generation only once it has grown past what the last full collection kept); a leak keeps growing.
  const readings = [rssMegabytes(platform.child.pid)];
  for (let round = 0; round < rssRounds; round += 1) {
    await runLoad(targets[2] as Target, body, 16, rssRequests);
    readings.push(rssMegabytes(platform.child.pid));
  }
  console.log(`\nmodel-platform RSS (MB) before and after each round of ${rssRequests} requests: ${readings.map((value) => value.toFixed(1)).join(' -> ')}`);
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const child of children) child.kill('SIGTERM');
    for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
  });
