// npm run bench:engine — model-platform against direct calls to a real engine: llama.cpp's
// llama-server with random-weight models in GLM-4.7's chat format, in one run, the two taking
// turns round by round so that the host's noise hits both (BENCHMARKS.md "bench:engine"). Two
// sizes: the tests' tiny model, whose tokens cost well under a millisecond, so that the platform's
// own hop is most of a call; and a realistic one, whose tokens cost what a small real model's do
// on one thread, so that the ratios are what a user of such a model sees.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findLlamaServer, startLlamaServer, type LlamaServer } from '../../test/helpers/llama-server.ts';
import { glmTinyChat } from '../../test/helpers/tiny-glm-gguf.ts';
import { writeTinyGguf, type TinyGgufChat, type TinyGgufShape } from '../../test/helpers/tiny-gguf.ts';
import { agentFor, runRound, type AnswerTarget } from './answer-load.ts';
import { freePort, start, stopAll, waitForHealth } from './bench-processes.ts';
import { isProxy, load, measureCell, targetNames, type Cell, type CellSetting } from './engine-cell.ts';
import { measureFailover } from './failover-load.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
/** Multiplies every tiny-model cell's requests per round (BENCH_SCALE=0.25 for a quick look). */
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
 * BENCH_FLOOR=1: also a bare Fastify route (bare-route-process.ts) in front of the tiny model's
 * engine in sync cells: the chat schema, the same mapping and engine exchange, nothing of the
 * platform around them. Its CPU a call is the part of the platform's that the libraries cost.
 */
const withFloor = process.env['BENCH_FLOOR'] === '1';
/**
 * In the sync cells, two more targets (BENCH_SYNC_WHOLE=0 leaves them out). The platform as
 * shipped asks llama.cpp for a stream even for a sync call and puts the answer together itself
 * (so that a departed client frees its slot): the engine does more work for it than for direct
 * calls or the proxy, which get whole answers. A platform whose model says `syncAnswers: whole`
 * gets whole answers too: the like-for-like hop, judged against the proxy. And direct calls that
 * ask for a stream and read it to its end: the engine's own work for the default.
 */
const withSyncWhole = process.env['BENCH_SYNC_WHOLE'] !== '0';
const messages = [{ role: 'user', content: 'Write a short story about a lighthouse keeper and a storm.' }];

const rounds = Number(process.env['BENCH_ROUNDS'] ?? '6');
/**
 * Latency at concurrency 1 is measured in pairs: one request to each target in turn, so that the
 * two requests of a pair meet the same moment of the host; the added latency is the median of the
 * pairs' differences (and the difference of the two p50s is printed beside it).
 */
const latencyPairs = Number(process.env['BENCH_LATENCY_PAIRS'] ?? '200');
const scaled = (requests: number, concurrency: number) => Math.max(concurrency, Math.round(requests * scale));
// On the 2-core development machine an answer of 256 tokens takes ~120-150 ms one at a time, 16 of
// them at once 2-5 s; a round lasts 1-8 s per target, the tiny model's cells 3-5 minutes.
/** BENCH_TINY=0: the tiny model only warms the processes up, its cells are left out (a run of the realistic size alone). */
const tinyCells: readonly Cell[] =
  process.env['BENCH_TINY'] === '0'
    ? []
    : [
        { maxTokens: 256, stream: false, concurrency: 1, rounds, requestsPerRound: scaled(6, 1), target: 'throughput' },
        { maxTokens: 256, stream: true, concurrency: 1, rounds, requestsPerRound: scaled(6, 1), target: 'throughput' },
        { maxTokens: 256, stream: false, concurrency: 16, rounds, requestsPerRound: scaled(32, 16), target: 'throughput' },
        { maxTokens: 256, stream: true, concurrency: 16, rounds, requestsPerRound: scaled(32, 16), target: 'throughput' },
        { maxTokens: 8, stream: false, concurrency: 1, rounds: scaled(latencyPairs, 1), requestsPerRound: 1, target: 'latency' },
        { maxTokens: 8, stream: true, concurrency: 1, rounds: scaled(latencyPairs, 1), requestsPerRound: 1, target: 'latency' },
      ];

/**
 * The realistic size: BENCH_REALISTIC=0 leaves it out. 6 layers of width 1024 in F32 (~55 M
 * weights, 220 MB) decode a token in 10-20 ms on one thread of the development machine, as a
 * 0.5-1.5 B model quantized to 4 bits does on one core; the run prints what the engine itself
 * reports. Its answers are shorter (BENCH_REALISTIC_TOKENS, 64), so that a cell lasts a minute or
 * two; there the hop is a few milliseconds of a second-long call, and the target is tighter.
 */
const withRealistic = process.env['BENCH_REALISTIC'] !== '0';
const realisticShape: TinyGgufShape = {
  layers: Number(process.env['BENCH_REALISTIC_LAYERS'] ?? '6'),
  width: Number(process.env['BENCH_REALISTIC_WIDTH'] ?? '1024'),
};
const realisticTokens = Number(process.env['BENCH_REALISTIC_TOKENS'] ?? '64');
const realisticRounds = Number(process.env['BENCH_REALISTIC_ROUNDS'] ?? '4');
const realisticCells: readonly Cell[] = [false, true].flatMap((stream) =>
  [1, 16].map((concurrency): Cell => ({
    maxTokens: realisticTokens,
    stream,
    concurrency,
    rounds: realisticRounds,
    requestsPerRound: concurrency === 1 ? 2 : 16,
    target: 'throughput',
  })),
);

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

/** One model size: its engine, the names it goes by, the prefix the proxy routes it by, its cells. */
interface Size {
  readonly label: string;
  readonly engine: LlamaServer;
  /** The engine's name for the model (`-a`), the platform's upstreamModel. */
  readonly alias: string;
  /** The platform's name for it: a GLM-4.7 model, so that the platform treats both alike. */
  readonly publicModel: string;
  /** The path prefix that sends a proxied call to this size's engine ('' for the first). */
  readonly proxyPrefix: string;
  readonly cells: readonly Cell[];
  readonly minimumRatio: number;
  readonly judgedAgainst: 'proxy' | 'direct';
}

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

/** A platform serving each size's model; with several engines, the first size's model has a deployment on each. */
async function startPlatform(
  name: string,
  sizes: readonly Size[],
  engines: readonly LlamaServer[],
  nodeFlags: readonly string[],
  dataDir: string,
  settings = '',
  tree = here('../..'),
): Promise<Platform> {
  const key = 'abcdefabcdefabcdefabcdefabcdef98.BenchSecret00002';
  const config = join(dataDir, 'config.yaml');
  const entry = (engine: LlamaServer, alias: string) =>
    `{ backend: openai-compatible, engine: llama.cpp, baseUrl: "${engine.baseUrl}", upstreamModel: ${alias}${settings} }`;
  const models = sizes.map((size, index) => {
    const deployments = index === 0 && engines.length > 1 ? engines : [size.engine];
    const model =
      deployments.length === 1 ? entry(size.engine, size.alias) : `{ deployments: [${deployments.map((engine) => entry(engine, size.alias)).join(', ')}] }`;
    return `  ${size.publicModel}: ${model}\n`;
  });
  writeFileSync(config, `models:\n${models.join('')}`);
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

/** The body for each side of a size: the platform's request, and the one the platform sends the engine for it. */
function bodiesFor(size: Size) {
  return (target: AnswerTarget, maxTokens: number, direct: boolean): AnswerTarget => {
    const bodies = [false, true].map((stream) =>
      JSON.stringify(
        direct
          ? {
              model: size.alias,
              messages,
              max_tokens: maxTokens,
              chat_template_kwargs: { enable_thinking: true },
              stream,
              ...(stream ? { stream_options: { include_usage: true } } : {}),
            }
          : { model: size.publicModel, messages, max_tokens: maxTokens, thinking: { type: 'enabled' }, stream },
      ),
    );
    return { ...target, body: (stream) => bodies[stream ? 1 : 0] ?? '' };
  };
}

/** The engine's own figure for a token of this size, one answer at a time: llama-server's `timings`. */
async function msPerToken(size: Size): Promise<number> {
  const body = JSON.stringify({ model: size.alias, messages, max_tokens: realisticTokens });
  const ask = async () => {
    const response = await fetch(`${size.engine.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const answer = (await response.json()) as { timings?: { predicted_per_token_ms?: number } };
    return answer.timings?.predicted_per_token_ms ?? Number.NaN;
  };
  // The first fills the prompt cache; the median of the next three.
  await ask();
  const figures = [await ask(), await ask(), await ask()].sort((left, right) => left - right);
  return figures[1] ?? Number.NaN;
}

const elapsed = (since: number) => `${((performance.now() - since) / 1000).toFixed(0)} s`;

async function main(): Promise<void> {
  const begun = performance.now();
  const binary = llamaServerBinary();
  const engines: LlamaServer[] = [];
  const startEngine = async (modelPath: string, alias: string) => {
    const engine = await startLlamaServer({ binary, modelPath, alias, contextSize, parallel, startTimeoutMs: 120_000 });
    engines.push(engine);
    return engine;
  };
  const dataDirs: string[] = [];
  try {
    const tinyPath = writeTinyGguf({ seed: 5, contextLength: contextSize, chat: benchChat });
    const sizes: Size[] = [
      {
        label: 'tiny model',
        engine: await startEngine(tinyPath, 'tiny-glm'),
        alias: 'tiny-glm',
        publicModel: 'glm-4.7',
        proxyPrefix: '',
        cells: tinyCells,
        minimumRatio: 0.95,
        judgedAgainst: 'proxy',
      },
    ];
    if (withRealistic) {
      const realisticPath = writeTinyGguf({ seed: 5, contextLength: contextSize, chat: benchChat, shape: realisticShape });
      const alias = 'realistic-glm';
      sizes.push({
        label: 'realistic model',
        engine: await startEngine(realisticPath, alias),
        alias,
        publicModel: 'glm-4.7-flash',
        proxyPrefix: '/realistic',
        cells: realisticCells,
        minimumRatio: 0.97,
        judgedAgainst: 'direct',
      });
    }
    const [tiny] = sizes;
    if (tiny === undefined) throw new Error('no model size');
    const platforms: Platform[] = [];
    const platformIn = async (name: string, prefix: string, engineList: readonly LlamaServer[], nodeFlags: readonly string[], settings = '', tree?: string) => {
      const dataDir = mkdtempSync(join(tmpdir(), `bench-engine-${prefix}-`));
      dataDirs.push(dataDir);
      platforms.push(await startPlatform(name, sizes, engineList, nodeFlags, dataDir, settings, tree));
    };
    await platformIn('platform', 'platform', [tiny.engine], []);
    if (withRouted) await platformIn(targetNames.routed, 'routed', [tiny.engine, await startEngine(tinyPath, tiny.alias)], []);
    if (withSyncWhole) await platformIn(targetNames.syncWhole, 'whole', [tiny.engine], [], ', syncAnswers: whole');
    if (abFlags.length > 0) await platformIn(`platform ${abFlags.join(' ')}`, 'ab', [tiny.engine], abFlags);
    if (abTree !== undefined) await platformIn('platform BENCH_AB_TREE', 'tree', [tiny.engine], [], '', abTree);
    const pids = new Map(platforms.map((platform) => [platform.target.name, platform.pid]));
    let proxyOrigin: string | undefined;
    if (withProxy) {
      const more = sizes.filter((size) => size.proxyPrefix !== '').map((size) => `${size.proxyPrefix.slice(1)}=${size.engine.baseUrl}`);
      const proxy = start(
        process.execPath,
        ['--import', here('../../bin/register-typescript.mjs'), here('./pass-through-proxy.ts')],
        { TARGET: tiny.engine.baseUrl, FRESH_STREAMS: '1', MORE_TARGETS: more.join(' ') },
        /(http:\/\/\S+)/,
      );
      pids.set('node proxy', proxy.pid);
      proxyOrigin = await proxy.match;
    }
    let floorOrigin: string | undefined;
    if (withFloor) {
      const floor = start(
        process.execPath,
        ['--import', here('../../bin/register-typescript.mjs'), here('./bare-route-process.ts')],
        { TARGET: tiny.engine.baseUrl, UPSTREAM_MODEL: tiny.alias },
        /(http:\/\/\S+)/,
      );
      pids.set(targetNames.floor, floor.pid);
      floorOrigin = await floor.match;
    }
    /** The targets of a size, direct calls first. */
    const targetsOf = (size: Size): AnswerTarget[] => {
      const direct: AnswerTarget = {
        name: targetNames.direct,
        url: `${size.engine.baseUrl}/chat/completions`,
        headers: {},
        keepsStreamsAlive: false,
        body: () => '',
      };
      // The routed model is the tiny one's.
      const targets = [direct, ...platforms.map((platform) => platform.target).filter((target) => size === tiny || target.name !== targetNames.routed)];
      if (withSyncWhole) targets.push({ ...direct, name: targetNames.directStreamed });
      if (floorOrigin !== undefined && size === tiny)
        targets.push({ name: targetNames.floor, url: `${floorOrigin}/chat/completions`, headers: {}, keepsStreamsAlive: true, body: () => '' });
      if (proxyOrigin !== undefined)
        targets.push({ name: 'node proxy', url: `${proxyOrigin}${size.proxyPrefix}/chat/completions`, headers: {}, keepsStreamsAlive: true, body: () => '' });
      return targets;
    };
    console.log(`llama-server ${binary}`);
    console.log(`  -np ${parallel} -c ${contextSize} --kv-unified -t 1; GLM-4.7-format models whose answers run to max_tokens`);
    console.log(`load average at the start: ${load()}`);

    console.log(`\nWarm-up: ${warmUpRequests} requests per target at concurrency 8 (tiny model, max_tokens 8, half streamed)`);
    const tinyBodies = bodiesFor(tiny);
    for (const target of targetsOf(tiny).filter((each) => each.name !== targetNames.directStreamed)) {
      for (const stream of target.name === targetNames.floor ? [false] : [false, true]) {
        const agent = agentFor(target, stream, 8);
        await runRound(tinyBodies(target, 8, target.name === targetNames.direct || isProxy(target)), stream, 8, Math.ceil(warmUpRequests / 2), agent);
        agent?.destroy();
      }
    }

    const verdicts: string[] = [];
    for (const size of sizes) {
      let heading = size.label;
      if (size !== tiny) {
        const perToken = await msPerToken(size);
        heading = `${size.label} (${realisticShape.layers} layers, width ${realisticShape.width}; ${perToken.toFixed(1)} ms a token on one thread)`;
        console.log(`\n${heading}: llama-server's own timing of one answer at a time, median of 3 (${elapsed(begun)} in)`);
        verdicts.push(
          `${size.label}: ${perToken.toFixed(1)} ms a token on one thread (target >= 10 ms): ${perToken >= 10 ? 'realistic' : 'NOT realistic (a larger BENCH_REALISTIC_LAYERS)'}`,
        );
      }
      const setting: CellSetting = {
        targets: targetsOf(size),
        withBodies: bodiesFor(size),
        pids,
        enginePid: size.engine.pid(),
        minimumRatio: size.minimumRatio,
        judgedAgainst: size.judgedAgainst,
        label: size.label,
        heading,
      };
      for (const cell of size.cells) verdicts.push(...(await measureCell(cell, setting)));
    }
    const single = platforms.find((platform) => platform.target.name === 'platform');
    const routed = platforms.find((platform) => platform.target.name === targetNames.routed);
    const second = engines.at(-1);
    if (single !== undefined && routed !== undefined && second !== undefined) {
      console.log(`\nFailover: ${targetNames.routed} under sync load at concurrency 16 (max_tokens 32); its second engine is killed (load ${load()})`);
      const failover = await measureFailover(tinyBodies(single.target, 32, false), tinyBodies(routed.target, 32, false), () => second.kill('SIGKILL'));
      console.log(`  the one-deployment platform on the survivor: ${failover.survivorPerSecond.toFixed(1)} answers/s`);
      console.log(`  routed, answers in each second after the kill: ${failover.perSecondAfterStop.join(' ')}`);
      console.log(`  failed: ${failover.failedInFlight} running on the killed engine, ${failover.failedAfterStop} started after the kill`);
      const reached = failover.reachedAfterSeconds;
      verdicts.push(
        `${targetNames.routed}, one engine killed: 90% of the survivor's answers/s ${reached === undefined ? 'not reached' : `reached within ${reached} s`}, ${failover.failedAfterStop} calls started after the kill failed (target <= 5 s, 0 failed): ${reached !== undefined && reached <= 5 && failover.failedAfterStop === 0 ? 'met' : 'NOT met'}`,
      );
    }
    console.log(`\nload average at the end: ${load()}; ${elapsed(begun)} in all`);
    console.log('\nTargets');
    for (const verdict of verdicts) console.log(`  ${verdict}`);
  } finally {
    stopAll();
    for (const engine of engines) await engine.stop();
    // The platforms close their databases on SIGTERM before the folders go.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const directory of dataDirs) rmSync(directory, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
