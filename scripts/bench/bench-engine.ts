// npm run bench:engine — model-platform against direct calls to a real engine: llama.cpp's
// llama-server with a tiny random-weight model in GLM-4.7's chat format, in one run, the two
// taking turns round by round so that the host's noise hits both (BENCHMARKS.md "bench:engine").
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { findLlamaServer, startLlamaServer, type LlamaServer } from '../../test/helpers/llama-server.ts';
import { glmTinyChat } from '../../test/helpers/tiny-glm-gguf.ts';
import { writeTinyGguf, type TinyGgufChat } from '../../test/helpers/tiny-gguf.ts';
import { agentFor, pooledPercentiles, runRound, type AnswerTarget, type RoundResult } from './answer-load.ts';
import { cpuTimes, freePort, start, stopAll, waitForHealth } from './bench-processes.ts';
import { measureFailover } from './failover-load.ts';
import { median } from './load.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
/** Multiplies every cell's requests per round (BENCH_SCALE=0.25 for a quick look). */
const scale = Number(process.env['BENCH_SCALE'] ?? '1');
/** `-np`: answers the engine decodes at once; 16 so that concurrency 16 never queues in the engine. */
const parallel = Number(process.env['BENCH_PARALLEL'] ?? '16');
/** `-c`, shared by the slots (`--kv-unified`): 512 a slot, room for the prompt and 256 tokens. */
const contextSize = Number(process.env['BENCH_CONTEXT'] ?? String(parallel * 512));
/**
 * Requests per target before the cells, at concurrency 8, half sync and half streamed. Thousands:
 * V8 settles a Node server's code over its first few thousand calls; after 100 calls at
 * concurrency 1 the platform took 2.6 ms of CPU a call in front of llama-server, after 4000 1.8 ms,
 * and a measurement of the first hundreds is one of a server just started.
 */
const warmUpRequests = Number(process.env['BENCH_WARMUP'] ?? '3000');
/**
 * Node flags for a second platform process, measured as a third target (an A/B of V8 settings in
 * one run), e.g. BENCH_AB_FLAGS="--no-allocation-site-pretenuring --heap-growing-percent=30".
 */
const abFlags = (process.env['BENCH_AB_FLAGS'] ?? '').split(' ').filter((flag) => flag !== '');
/**
 * BENCH_AB_TREE=<another checkout>: also that checkout's platform on the same engine, taking turns
 * with the others (an A/B of a change; run both from their sources or both built).
 */
const abTree = process.env['BENCH_AB_TREE'];
/**
 * BENCH_PROXY=1: also a minimal Node pass-through proxy (pass-through-proxy.ts, a streamed call on
 * a connection of its own as llama-server requires) in front of the engine in every cell: what any
 * extra hop costs on this host, the floor under the platform's figures.
 */
const withProxy = process.env['BENCH_PROXY'] === '1';
/**
 * BENCH_ROUTED=1: also a platform whose model has two deployments, this engine and a second
 * llama-server, measured beside the one-deployment platform in every cell (the two engines share
 * the host's CPUs, so the same work is spread, and the difference is what routing costs); and at
 * the end, the failover case: the second engine killed under load (failover-load.ts).
 */
const withRouted = process.env['BENCH_ROUTED'] === '1';
/**
 * BENCH_SYNC_WHOLE=1: two more targets in the sync cells. A platform whose model says
 * `syncAnswers: whole`: non-streamed calls reach the engine as whole answers, as the direct calls
 * do, instead of the stream the platform asks llama.cpp for by default. And direct calls that ask
 * for a stream and read it to its end: the engine's own work for the platform's default, so the
 * default's ratio to it is what the platform adds, apart from what streaming costs the engine.
 */
const withSyncWhole = process.env['BENCH_SYNC_WHOLE'] === '1';
const syncWholeName = 'platform syncAnswers: whole';
const directStreamedName = 'direct, asked for a stream';
const routedName = 'platform routed (2 deployments)';
const alias = 'tiny-glm';
const publicModel = 'glm-4.7';
const messages = [{ role: 'user', content: 'Write a short story about a lighthouse keeper and a storm.' }];

interface Cell {
  readonly maxTokens: number;
  readonly stream: boolean;
  readonly concurrency: number;
  readonly rounds: number;
  readonly requestsPerRound: number;
  /** Judged on throughput (req/s against direct) or on added p50 latency. */
  readonly target: 'throughput' | 'latency';
}

const rounds = Number(process.env['BENCH_ROUNDS'] ?? '6');
/**
 * Latency at concurrency 1 is measured in pairs: one request to each target in turn, so that the
 * two requests of a pair meet the same moment of the host; the added latency is the median of the
 * pairs' differences (and the difference of the two p50s is printed beside it).
 */
const latencyPairs = Number(process.env['BENCH_LATENCY_PAIRS'] ?? '200');
const scaled = (requests: number, concurrency: number) => Math.max(concurrency, Math.round(requests * scale));
// On the 2-core development machine an answer of 256 tokens takes ~120-150 ms one at a time, 16 of
// them at once 2-5 s; a round lasts 1-8 s per target, the whole run 3-5 minutes.
const cells: readonly Cell[] = [
  { maxTokens: 256, stream: false, concurrency: 1, rounds, requestsPerRound: scaled(6, 1), target: 'throughput' },
  { maxTokens: 256, stream: true, concurrency: 1, rounds, requestsPerRound: scaled(6, 1), target: 'throughput' },
  { maxTokens: 256, stream: false, concurrency: 16, rounds, requestsPerRound: scaled(32, 16), target: 'throughput' },
  { maxTokens: 256, stream: true, concurrency: 16, rounds, requestsPerRound: scaled(32, 16), target: 'throughput' },
  { maxTokens: 8, stream: false, concurrency: 1, rounds: scaled(latencyPairs, 1), requestsPerRound: 1, target: 'latency' },
  { maxTokens: 8, stream: true, concurrency: 1, rounds: scaled(latencyPairs, 1), requestsPerRound: 1, target: 'latency' },
];

/**
 * The GLM format of the tests' tiny model, with nothing that ends an answer: no end of text, turn
 * or message, no tool-call markers (the request has no tools). Every answer then runs to its
 * max_tokens, so both sides decode the same number of tokens. `</think>` keeps its push, so an
 * answer is reasoning, then content, parsed by the engine as for the real model.
 */
const benchChat: TinyGgufChat = {
  ...glmTinyChat,
  logitOffsets: new Map([
    ...(glmTinyChat.logitOffsets ?? []),
    ...['<|endoftext|>', '<|user|>', '<|observation|>', '<tool_call>', '</tool_call>', '</arg_value>'].map((token) => [token, -25] as const),
  ]),
  followers: [],
};

function llamaServerBinary(): string {
  const named = findLlamaServer();
  if (named !== undefined) return named;
  // Builds it once per machine (~12 min on 2 cores) or finds the cached build; its path is the last line.
  const output = execFileSync('bash', [here('../test/build-llama-server.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const binary = output.trim().split('\n').at(-1) ?? '';
  if (binary === '') throw new Error('llama-server could not be built (see above); set LLAMA_SERVER_BIN to a built binary');
  return binary;
}

interface Platform {
  readonly target: AnswerTarget;
  readonly pid: number;
}

async function startPlatform(
  name: string,
  engines: readonly LlamaServer[],
  nodeFlags: readonly string[],
  dataDir: string,
  settings = '',
  tree = here('../..'),
): Promise<Platform> {
  const key = 'abcdefabcdefabcdefabcdefabcdef98.BenchSecret00002';
  const config = join(dataDir, 'config.yaml');
  const entry = (engine: LlamaServer) => `{ backend: openai-compatible, engine: llama.cpp, baseUrl: "${engine.baseUrl}", upstreamModel: ${alias}${settings} }`;
  const [first] = engines;
  if (first === undefined) throw new Error('a platform needs an engine');
  const model = engines.length === 1 ? entry(first) : `{ deployments: [${engines.map(entry).join(', ')}] }`;
  writeFileSync(config, `models:\n  ${publicModel}: ${model}\n`);
  const port = await freePort();
  // Request logs off (warn), as in bench:chat: the run measures the request path, not the log sink.
  const started = start(
    process.execPath,
    [...nodeFlags, join(tree, 'bin/model-platform.js'), 'serve'],
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      MODEL_PLATFORM_DATA_DIR: dataDir,
      MODEL_PLATFORM_CONFIG: config,
      MODEL_PLATFORM_BOOTSTRAP_KEY: key,
      LOG_LEVEL: 'warn',
    },
    /(Created the bootstrap API key)/,
  );
  await started.match;
  const origin = `http://127.0.0.1:${port}`;
  await waitForHealth(origin);
  return {
    pid: started.pid,
    target: {
      name,
      url: `${origin}/paas/v4/chat/completions`,
      headers: { authorization: `Bearer ${key}` },
      keepsStreamsAlive: true,
      body: () => '',
    },
  };
}

/** The body for each side: the platform's request, and the one the platform sends the engine for it. */
function withBodies(target: AnswerTarget, maxTokens: number, direct: boolean): AnswerTarget {
  const bodies = [false, true].map((stream) =>
    JSON.stringify(
      direct
        ? {
            model: alias,
            messages,
            max_tokens: maxTokens,
            chat_template_kwargs: { enable_thinking: true },
            stream,
            ...(stream ? { stream_options: { include_usage: true } } : {}),
          }
        : { model: publicModel, messages, max_tokens: maxTokens, thinking: { type: 'enabled' }, stream },
    ),
  );
  return { ...target, body: (stream) => bodies[stream ? 1 : 0] ?? '' };
}

interface Side {
  readonly target: AnswerTarget;
  /** Whether its requests ask for a stream (direct calls standing for the platform's default sync answers do in sync cells). */
  readonly stream: boolean;
  readonly agent: Agent | undefined;
  /** The platform process, for its CPU time; none for direct calls. */
  readonly pid: number | undefined;
  readonly rounds: RoundResult[];
  cpuMs: number;
}

const isProxy = (target: AnswerTarget) => target.name.startsWith('node proxy');
const fixed = (value: number, digits = 1) => value.toFixed(digits);
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;
const elapsed = (since: number) => `${((performance.now() - since) / 1000).toFixed(0)} s`;
const roundP50 = (round: RoundResult | undefined) => (round === undefined ? Number.NaN : pooledPercentiles([round], (each) => each.latenciesMs).p50);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const begun = performance.now();
  const binary = llamaServerBinary();
  const modelPath = writeTinyGguf({ seed: 5, contextLength: contextSize, chat: benchChat });
  const engine = await startLlamaServer({ binary, modelPath, alias, contextSize, parallel, startTimeoutMs: 60_000 });
  const dataDirs: string[] = [];
  let secondEngine: LlamaServer | undefined;
  try {
    const direct: AnswerTarget = { name: 'direct', url: `${engine.baseUrl}/chat/completions`, headers: {}, keepsStreamsAlive: false, body: () => '' };
    const directStreamed: AnswerTarget = { ...direct, name: directStreamedName };
    const platforms: Platform[] = [];
    const platformDir = mkdtempSync(join(tmpdir(), 'bench-engine-'));
    dataDirs.push(platformDir);
    platforms.push(await startPlatform('platform', [engine], [], platformDir));
    if (withRouted) {
      secondEngine = await startLlamaServer({ binary, modelPath, alias, contextSize, parallel, startTimeoutMs: 60_000 });
      const routedDir = mkdtempSync(join(tmpdir(), 'bench-engine-routed-'));
      dataDirs.push(routedDir);
      platforms.push(await startPlatform(routedName, [engine, secondEngine], [], routedDir));
    }
    if (withSyncWhole) {
      const wholeDir = mkdtempSync(join(tmpdir(), 'bench-engine-whole-'));
      dataDirs.push(wholeDir);
      platforms.push(await startPlatform(syncWholeName, [engine], [], wholeDir, ', syncAnswers: whole'));
    }
    if (abFlags.length > 0) {
      const abDir = mkdtempSync(join(tmpdir(), 'bench-engine-ab-'));
      dataDirs.push(abDir);
      platforms.push(await startPlatform(`platform ${abFlags.join(' ')}`, [engine], abFlags, abDir));
    }
    if (abTree !== undefined) {
      const treeDir = mkdtempSync(join(tmpdir(), 'bench-engine-tree-'));
      dataDirs.push(treeDir);
      platforms.push(await startPlatform('platform BENCH_AB_TREE', [engine], [], treeDir, '', abTree));
    }
    const base = [direct, ...platforms.map((platform) => platform.target)];
    /** The processes in front of the engine, for their CPU time. */
    const pids = new Map(platforms.map((platform) => [platform.target.name, platform.pid]));
    if (withProxy) {
      const proxy = start(
        process.execPath,
        ['--import', here('../../bin/register-typescript.mjs'), here('./pass-through-proxy.ts')],
        { TARGET: engine.baseUrl, FRESH_STREAMS: '1' },
        /(http:\/\/\S+)/,
      );
      pids.set('node proxy', proxy.pid);
      base.push({ name: 'node proxy', url: `${await proxy.match}/chat/completions`, headers: {}, keepsStreamsAlive: true, body: () => '' });
    }
    console.log(`llama-server ${binary}`);
    console.log(`  -np ${parallel} -c ${contextSize} --kv-unified -t 1; tiny GLM-4.7-format model (2 layers, width 64), answers run to max_tokens`);
    console.log(`load average at the start: ${load()}`);

    console.log(`\nWarm-up: ${warmUpRequests} requests per target at concurrency 8 (max_tokens 8, half streamed)`);
    for (const target of base) {
      for (const stream of [false, true]) {
        const agent = agentFor(target, stream, 8);
        await runRound(withBodies(target, 8, target === direct || isProxy(target)), stream, 8, Math.ceil(warmUpRequests / 2), agent);
        agent?.destroy();
      }
    }

    const verdicts: string[] = [];
    const nameWidth = Math.max(6, ...base.map((target) => target.name.length));
    for (const cell of cells) {
      const requests = cell.requestsPerRound;
      // Streamed calls are the same with either syncAnswers.
      const targets = cell.stream ? base.filter((target) => target.name !== syncWholeName) : withSyncWhole ? [...base, directStreamed] : base;
      const sides: Side[] = targets.map((target) => ({
        target: withBodies(target, cell.maxTokens, target === direct || target === directStreamed || isProxy(target)),
        stream: cell.stream || target === directStreamed,
        agent: agentFor(target, cell.stream || target === directStreamed, cell.concurrency),
        pid: pids.get(target.name),
        rounds: [],
        cpuMs: 0,
      }));
      // One round's worth each first: new connections, the engine's slots and prompt cache.
      for (const side of sides) await runRound(side.target, side.stream, cell.concurrency, requests, side.agent);
      for (let round = 0; round < cell.rounds; round += 1) {
        for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
          const before = side.pid === undefined ? 0 : (cpuTimes([side.pid]).get(side.pid) ?? 0);
          side.rounds.push(await runRound(side.target, side.stream, cell.concurrency, requests, side.agent));
          if (side.pid !== undefined) side.cpuMs += (cpuTimes([side.pid]).get(side.pid) ?? 0) - before;
        }
      }
      for (const side of sides) side.agent?.destroy();

      const mode = cell.stream ? 'streamed' : 'sync';
      console.log(
        `\nmax_tokens ${cell.maxTokens}, ${mode}, concurrency ${cell.concurrency}: ${cell.rounds} rounds of ${requests} request(s) per target (load ${load()}, ${elapsed(begun)} in)`,
      );
      console.log(`${'target'.padEnd(nameWidth)} |  req/s |  p50 ms |  p99 ms | TTFB p50 | tokens/answer | CPU ms/req | vs direct: median (each round)`);
      const directRounds = sides[0]?.rounds ?? [];
      const directP50 = pooledPercentiles(directRounds, (round) => round.latenciesMs).p50;
      for (const side of sides) {
        const latency = pooledPercentiles(side.rounds, (round) => round.latenciesMs);
        const firstByte = pooledPercentiles(side.rounds, (round) => round.firstBytesMs);
        const answered = side.rounds.reduce((sum, round) => sum + round.requests, 0);
        const tokensPerAnswer = side.rounds.reduce((sum, round) => sum + round.completionTokens, 0) / answered;
        const isDirect = side.target.name === direct.name;
        const ratios = side.rounds.map((round, index) => round.requestsPerSecond / (directRounds[index]?.requestsPerSecond ?? Number.NaN));
        // Pairs of single requests are too many to list, and their req/s is only the inverse of a latency.
        const each = cell.target === 'throughput' ? ` (${ratios.map((ratio) => fixed(ratio, 2)).join(' ')})` : '';
        const versus = isDirect ? '' : `${fixed(median(ratios), 3)}x${each}`;
        const cpu = side.pid === undefined ? '' : fixed(side.cpuMs / answered, 2);
        console.log(
          `${side.target.name.padEnd(nameWidth)} | ${fixed(median(side.rounds.map((round) => round.requestsPerSecond))).padStart(6)} | ${fixed(latency.p50, 2).padStart(7)} | ${fixed(latency.p99, 2).padStart(7)} | ${fixed(firstByte.p50, 2).padStart(8)} | ${fixed(tokensPerAnswer).padStart(13)} | ${cpu.padStart(10)} | ${versus}`,
        );
        if (isDirect) continue;
        const label = `${side.target.name}, max_tokens ${cell.maxTokens} ${mode} c${cell.concurrency}`;
        if (isProxy(side.target)) {
          // The floor, not judged: what one minimal extra hop costs on this host.
          const added = cell.target === 'latency' ? median(side.rounds.map((round, index) => roundP50(round) - roundP50(directRounds[index]))) : Number.NaN;
          verdicts.push(
            `${label} (the floor, no target): ${cell.target === 'latency' ? `${signed(added)} ms over direct` : `${fixed(median(ratios), 3)}x the direct req/s`}`,
          );
          continue;
        }
        // In sync cells with BENCH_SYNC_WHOLE: the engine's work for the platform's default, asked directly.
        const streamedRounds = sides.find((each) => each.target.name === directStreamedName)?.rounds;
        if (side.target.name === directStreamedName) {
          // Not judged: what asking for a stream costs the engine itself.
          const what =
            cell.target === 'latency'
              ? `${signed(median(side.rounds.map((round, index) => roundP50(round) - roundP50(directRounds[index]))))} ms over`
              : `${fixed(median(ratios), 3)}x`;
          verdicts.push(`${label} (the engine's own cost of streaming a whole answer, no target): ${what} the direct whole answers`);
          continue;
        }
        if (side.target.name === routedName) {
          const single = sides.find((each) => each.target.name === 'platform')?.rounds ?? [];
          const overSingle = median(side.rounds.map((round, index) => round.requestsPerSecond / (single[index]?.requestsPerSecond ?? Number.NaN)));
          verdicts.push(`${label}: ${fixed(overSingle, 3)}x the one-deployment platform's req/s (target >= 0.98x): ${overSingle >= 0.98 ? 'met' : 'NOT met'}`);
          continue;
        }
        const proxyRounds = sides.find((each) => isProxy(each.target))?.rounds;
        if (cell.target === 'throughput') {
          const ratio = median(ratios);
          // Beside the floor: the platform's req/s over the proxy's, round by round.
          const overProxy =
            proxyRounds === undefined
              ? ''
              : `; ${fixed(median(side.rounds.map((round, index) => round.requestsPerSecond / (proxyRounds[index]?.requestsPerSecond ?? Number.NaN))), 3)}x the proxy's`;
          const overStreamed =
            streamedRounds === undefined || side.target.name === syncWholeName
              ? ''
              : `; ${fixed(median(side.rounds.map((round, index) => round.requestsPerSecond / (streamedRounds[index]?.requestsPerSecond ?? Number.NaN))), 3)}x the direct streamed calls'`;
          verdicts.push(
            `${label}: ${fixed(ratio, 3)}x the direct req/s${overProxy}${overStreamed} (target >= 0.95x direct): ${ratio >= 0.95 ? 'met' : 'NOT met'}`,
          );
        } else {
          const added = median(side.rounds.map((round, index) => roundP50(round) - roundP50(directRounds[index])));
          const overStreamed =
            streamedRounds === undefined || side.target.name === syncWholeName
              ? ''
              : `; ${signed(median(side.rounds.map((round, index) => roundP50(round) - roundP50(streamedRounds[index]))))} ms over the direct streamed calls`;
          verdicts.push(
            `${label}: ${signed(added)} ms over direct, median of ${cell.rounds} pairs (p50 ${fixed(latency.p50, 2)} against ${fixed(directP50, 2)}: ${signed(latency.p50 - directP50)})${overStreamed} (target <= +1 ms): ${added <= 1 ? 'met' : 'NOT met'}`,
          );
        }
      }
    }
    const [single, routed] = platforms;
    if (withRouted && secondEngine !== undefined && single !== undefined && routed !== undefined) {
      const stopped = secondEngine;
      console.log(`\nFailover: ${routedName} under sync load at concurrency 16 (max_tokens 32); its second engine is killed (load ${load()})`);
      const failover = await measureFailover(withBodies(single.target, 32, false), withBodies(routed.target, 32, false), () => stopped.kill('SIGKILL'));
      console.log(`  the one-deployment platform on the survivor: ${fixed(failover.survivorPerSecond)} answers/s`);
      console.log(`  routed, answers in each second after the kill: ${failover.perSecondAfterStop.join(' ')}`);
      console.log(`  failed: ${failover.failedInFlight} running on the killed engine, ${failover.failedAfterStop} started after the kill`);
      const reached = failover.reachedAfterSeconds;
      verdicts.push(
        `${routedName}, one engine killed: 90% of the survivor's answers/s ${reached === undefined ? 'not reached' : `reached within ${reached} s`}, ${failover.failedAfterStop} calls started after the kill failed (target <= 5 s, 0 failed): ${reached !== undefined && reached <= 5 && failover.failedAfterStop === 0 ? 'met' : 'NOT met'}`,
      );
    }
    console.log(`\nload average at the end: ${load()}; ${elapsed(begun)} in all`);
    console.log('\nTargets');
    for (const verdict of verdicts) console.log(`  ${verdict}`);
  } finally {
    stopAll();
    await engine.stop();
    await secondEngine?.stop();
    // The platforms close their databases on SIGTERM before the folders go.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const directory of dataDirs) rmSync(directory, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
