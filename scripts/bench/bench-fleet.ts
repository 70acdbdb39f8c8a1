// npm run bench:fleet — what key limits and usage metering cost on the chat path, in one
// run against the chat benchmark's loopback fake engine: the same servers and requests, sent with
// a key without a policy (limits off; the usage ledger as always) and with a key whose policy runs
// every check of the hot path without ever refusing (limits on). Two setups:
// (1) one node: SQLite, the in-process limiter;
// (2) two nodes behind a round-robin proxy: PostgreSQL (a fresh database) and the Redis limiter,
//     which leases large limits to each node (a redis-server of its own); skipped, with a note,
//     without TEST_DATABASE_URL or DATABASE_URL.
// Off and on alternate round by round, so drift on a shared machine hits both alike, and the
// servers' own CPU time per request is measured too (from /proc): it does not depend on how much
// of the machine other work takes.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { cpuTimes, freePort, start, stopAll } from './bench-processes.ts';
import { median, post, runLoad, type LoadResult, type Target } from './load.ts';

// As bench:chat: long enough runs, each level after a warm-up at its concurrency, so that a run is
// not decided by the moments when V8 recompiles a server's code for new connections or a new load
// pattern. Two nodes behind the proxy get half the
// warm-up each: after 2000 per key their CPU per request still fell round after round (by a third
// over the next 50000 requests); after 10000 it was level from the first round.
const requestsPerRun = Number(process.env['BENCH_REQUESTS'] ?? '4000');
const warmUpRequests = Number(process.env['BENCH_WARMUP'] ?? '10000');
// Each round runs off and on back to back; the target is judged on the median of the rounds'
// on/off ratios, so the machine's speed drifting between rounds (other tenants of this host) cancels
// out within each pair rather than landing on one side of a ratio of two medians.
const rounds = Number(process.env['BENCH_ROUNDS'] ?? '9');
const streamsPerKey = Number(process.env['BENCH_STREAMS'] ?? '200');
const postgresAdminUrl = (process.env['TEST_DATABASE_URL'] ?? '') || (process.env['DATABASE_URL'] ?? '') || undefined;
/** Which setups run: `one`, `two` or both (default). */
const setupNames = (process.env['BENCH_SETUPS'] ?? 'one,two').split(',');
const concurrencies = [16, 64];
const target = 0.9;
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const bootstrapKey = 'abcdefabcdefabcdefabcdefabcdef98.BenchSecret00002';
const model = 'glm-4.7';
const streamChunks = 20;
const cleanups: (() => unknown)[] = [];

/** Every check of the hot path, none of which refuses at this load. Charges per call: 10 + ceil(12 × 0.5 + 7 × 1.5) = 27. */
const limitsOnPolicy = {
  models: [model],
  concurrency: { perModel: 1000 },
  requestsPerMinute: 100_000_000,
  quota: { period: 'day', tokens: 1_000_000_000_000, calls: 1_000_000_000_000 },
  credit: { balance: 1_000_000_000_000_000, prices: { [model]: { perCall: 10, perPromptToken: 0.5, perCompletionToken: 1.5 } } },
};
const chargePerCall = 27;
const chargePerStream = 10 + Math.ceil(12 * 0.5 + streamChunks * 1.5);

/** A `serve` process (request logs off, as in the chat benchmark); resolves once it answers /healthz. */
async function startNode(environment: NodeJS.ProcessEnv): Promise<{ origin: string; pid: number }> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-fleet-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  // BENCH_CPU_PROF=DIR: a CPU profile of each server in DIR.
  const profile = process.env['BENCH_CPU_PROF'];
  const flags = profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profile}`];
  const node = start(
    process.execPath,
    [...flags, here('../../bin/model-platform.js'), 'serve'],
    { PORT: String(port), HOST: '127.0.0.1', MODEL_PLATFORM_DATA_DIR: dataDir, MODEL_PLATFORM_BOOTSTRAP_KEY: bootstrapKey, LOG_LEVEL: 'warn', ...environment },
    /(?!)/,
  );
  const origin = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (
      await fetch(`${origin}/healthz`).then(
        (response) => response.ok,
        () => false,
      )
    )
      return { origin, pid: node.pid };
    await Promise.race([node.exited, new Promise((resolve) => setTimeout(resolve, 100))]);
  }
  throw new Error(`${origin} did not become healthy`);
}

async function admin(origin: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${origin}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${bootstrapKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} /admin${path}: HTTP ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

async function createKey(origin: string, name: string, policy?: unknown): Promise<{ id: string; key: string }> {
  const created = await admin(origin, 'POST', '/keys', { name, ...(policy === undefined ? {} : { policy }) });
  return { id: String(created['id']), key: String(created['key']) };
}

async function creditBalance(origin: string, id: string): Promise<number> {
  const view = await admin(origin, 'GET', `/keys/${id}`);
  return Number((view['policy'] as { credit?: { balance?: number } } | null)?.credit?.balance);
}

async function ledgerCalls(origin: string, keyId: string): Promise<number> {
  const report = await admin(origin, 'GET', `/usage?key_id=${keyId}`);
  return (report['data'] as { calls: number }[]).reduce((sum, row) => sum + row.calls, 0);
}

interface Measured extends LoadResult {
  /** CPU time of the measured processes per request, µs. */
  readonly cpuMicroseconds: number;
  /** The same by group of processes (servers, Redis, PostgreSQL). */
  readonly cpuByGroup: Readonly<Record<string, number>>;
  /** Limits script calls Redis ran per request (two nodes): how many calls had to ask Redis. */
  readonly redisCallsPerRequest: number | undefined;
}

interface Setup {
  readonly name: string;
  /** Where requests go: a node, or the proxy in front of two. */
  readonly entry: string;
  /** Where the admin API is asked. */
  readonly adminOrigin: string;
  /** The processes whose CPU a request costs, by group (servers, Redis, their PostgreSQL backends), read at each run. */
  readonly processes: () => Promise<Record<string, number[]>>;
  /** Script calls Redis has run so far (INFO commandstats), where there is a Redis. */
  readonly redisCalls?: () => Promise<number>;
}

async function measureRun(setup: Setup, chat: Target, body: string, concurrency: number): Promise<Measured> {
  const groupsBefore = await setup.processes();
  const redisBefore = await setup.redisCalls?.();
  const before = cpuTimes(Object.values(groupsBefore).flat());
  const load = await runLoad(chat, body, concurrency, requestsPerRun);
  const groupsAfter = await setup.processes();
  const redisAfter = await setup.redisCalls?.();
  const cpuByGroup: Record<string, number> = {};
  let total = 0;
  for (const [group, pids] of Object.entries(groupsAfter)) {
    // Processes that started during the run (a new pooled connection) count from zero.
    const after = cpuTimes([...new Set([...(groupsBefore[group] ?? []), ...pids])]);
    let spent = 0;
    for (const [pid, time] of after) spent += time - (before.get(pid) ?? 0);
    cpuByGroup[group] = (spent * 1000) / requestsPerRun;
    total += cpuByGroup[group];
  }
  const redisCallsPerRequest = redisBefore === undefined || redisAfter === undefined ? undefined : (redisAfter - redisBefore) / requestsPerRun;
  return { ...load, cpuMicroseconds: total, cpuByGroup, redisCallsPerRequest };
}

/** Median of each figure over the rounds. */
function medianRun(results: readonly Measured[]): Measured {
  const middle = (pick: (result: Measured) => number) => median(results.map(pick));
  const groups = Object.keys(results[0]?.cpuByGroup ?? {});
  return {
    requestsPerSecond: middle((result) => result.requestsPerSecond),
    p50Ms: middle((result) => result.p50Ms),
    p99Ms: middle((result) => result.p99Ms),
    cpuMicroseconds: middle((result) => result.cpuMicroseconds),
    cpuByGroup: Object.fromEntries(groups.map((group) => [group, middle((result) => result.cpuByGroup[group] ?? 0)])),
    redisCallsPerRequest: results[0]?.redisCallsPerRequest === undefined ? undefined : middle((result) => result.redisCallsPerRequest ?? 0),
  };
}

async function streamTtfb(chat: Target, body: string): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const firstBytes: number[] = [];
  for (let index = 0; index < streamsPerKey; index += 1) firstBytes.push((await post(chat, body, agent)).firstByteMs);
  agent.destroy();
  return median(firstBytes);
}

interface Outcome {
  readonly setup: Setup;
  readonly rows: { readonly concurrency: number; readonly off: Measured; readonly on: Measured; readonly ratios: readonly number[] }[];
  readonly ttfb: { readonly off: number; readonly on: number };
}

async function measure(setup: Setup): Promise<Outcome> {
  const offKey = await createKey(setup.adminOrigin, 'bench limits off');
  const onKey = await createKey(setup.adminOrigin, 'bench limits on', limitsOnPolicy);
  const balanceBefore = await creditBalance(setup.adminOrigin, onKey.id);
  const chat = (key: string, label: string): Target => ({
    name: label,
    url: `${setup.entry}/paas/v4/chat/completions`,
    headers: { authorization: `Bearer ${key}` },
  });
  const off = chat(offKey.key, 'limits off');
  const on = chat(onKey.key, 'limits on');
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }] });
  const streamBody = JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }], stream: true });
  const rows: Outcome['rows'] = [];
  for (const concurrency of concurrencies) {
    for (const key of [off, on]) await runLoad(key, body, concurrency, warmUpRequests); // JIT, sockets, caches, quota seeding
    const results = { off: [] as Measured[], on: [] as Measured[] };
    for (let round = 0; round < rounds; round += 1) {
      for (const side of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        results[side].push(await measureRun(setup, side === 'off' ? off : on, body, concurrency));
      }
    }
    const ratios = results.on.map((result, round) => result.requestsPerSecond / (results.off[round]?.requestsPerSecond ?? Number.NaN));
    rows.push({ concurrency, off: medianRun(results.off), on: medianRun(results.on), ratios });
  }
  const ttfb = { off: await streamTtfb(off, streamBody), on: await streamTtfb(on, streamBody) };

  // The books: every call of the on key charged (off the request path), every call of both in the ledger.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  const sent = concurrencies.length * (warmUpRequests + rounds * requestsPerRun);
  const spent = balanceBefore - (await creditBalance(setup.adminOrigin, onKey.id));
  const ledger = { off: await ledgerCalls(setup.adminOrigin, offKey.id), on: await ledgerCalls(setup.adminOrigin, onKey.id) };
  console.log(
    `${setup.name}: credit charged ${spent} of ${sent * chargePerCall + streamsPerKey * chargePerStream} expected; ` +
      `usage ledger calls: off ${ledger.off}, on ${ledger.on} of ${sent + streamsPerKey} sent each`,
  );
  return { setup, rows, ttfb };
}

async function oneNode(configPath: string): Promise<Setup> {
  const node = await startNode({ MODEL_PLATFORM_CONFIG: configPath });
  return { name: 'one node (SQLite, in-process limiter)', entry: node.origin, adminOrigin: node.origin, processes: async () => ({ server: [node.pid] }) };
}

async function twoNodes(configPath: string): Promise<Setup | undefined> {
  if (postgresAdminUrl === undefined) {
    console.log("Two nodes: skipped. Two processes need a shared PostgreSQL (SQLite is one process's file): set TEST_DATABASE_URL or DATABASE_URL.");
    return undefined;
  }
  const databaseName = `bench_fleet_${randomBytes(5).toString('hex')}`;
  await withPostgres((client) => client.query(`CREATE DATABASE ${databaseName}`));
  cleanups.push(() => withPostgres((client) => client.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`)));
  const databaseUrl = new URL(postgresAdminUrl);
  databaseUrl.pathname = `/${databaseName}`;
  const redisPort = await freePort();
  const redis = start(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(redisPort), '--save', '', '--appendonly', 'no'],
    {},
    /(Ready to accept connections)/,
  );
  await redis.match;
  const shared = { MODEL_PLATFORM_CONFIG: configPath, DATABASE_URL: databaseUrl.toString(), REDIS_URL: `redis://127.0.0.1:${redisPort}` };
  // One after the other: the first applies the migrations and creates the bootstrap key.
  const first = await startNode(shared);
  const second = await startNode(shared);
  const proxy = await start(
    process.execPath,
    ['--import', here('../../bin/register-typescript.mjs'), here('./round-robin-proxy.ts')],
    { TARGETS: `${first.origin},${second.origin}` },
    /(http:\/\/\S+)/,
  ).match;
  const stats = new Redis(shared.REDIS_URL);
  // Redis is stopped before the cleanups run: its reconnection errors are expected then.
  stats.on('error', () => undefined);
  cleanups.push(() => stats.disconnect());
  const backends = async () => {
    let pids: number[] = [];
    await withPostgres(async (client) => {
      const rows = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [databaseName]);
      pids = rows.rows.map((row) => row.pid);
    });
    return pids;
  };
  return {
    name: 'two nodes + proxy (PostgreSQL, Redis limiter)',
    entry: proxy,
    adminOrigin: first.origin,
    processes: async () => ({ servers: [first.pid, second.pid], redis: [redis.pid], postgres: await backends() }),
    redisCalls: async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await stats.info('commandstats'))?.[1] ?? '0'),
  };
}

async function withPostgres(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: postgresAdminUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

function report(outcomes: readonly Outcome[]): void {
  const figures = (result: Measured) =>
    `${result.requestsPerSecond.toFixed(0).padStart(6)} | ${result.p50Ms.toFixed(2).padStart(6)} | ${result.p99Ms.toFixed(2).padStart(6)} | ${result.cpuMicroseconds.toFixed(0).padStart(6)}`;
  console.log(
    `\nNon-streamed chat completions, ${requestsPerRun} requests per run, medians of ${rounds} rounds (off and on alternating; on/off: the median of the rounds' ratios)`,
  );
  console.log(
    'setup                                          | conc | off req/s | p50 ms | p99 ms | CPU µs/req | on req/s | p50 ms | p99 ms | CPU µs/req | on/off req/s | CPU on/off',
  );
  for (const outcome of outcomes) {
    for (const row of outcome.rows) {
      const ratio = median(row.ratios);
      const cpu = row.on.cpuMicroseconds / row.off.cpuMicroseconds;
      console.log(
        `${outcome.setup.name.padEnd(46)} | ${String(row.concurrency).padStart(4)} |    ${figures(row.off)}     |   ${figures(row.on)}     | ${ratio.toFixed(2).padStart(11)}x | ${cpu.toFixed(2)}x`,
      );
    }
  }
  console.log('\nCPU µs per request by process (medians; the proxy, the engine and the load generator are not counted), off -> on:');
  for (const outcome of outcomes) {
    for (const row of outcome.rows) {
      const groups = Object.keys(row.off.cpuByGroup).map(
        (group) => `${group} ${(row.off.cpuByGroup[group] ?? 0).toFixed(0)} -> ${(row.on.cpuByGroup[group] ?? 0).toFixed(0)}`,
      );
      if (row.on.redisCallsPerRequest !== undefined)
        groups.push(`Redis script calls/req ${(row.off.redisCallsPerRequest ?? 0).toFixed(3)} -> ${row.on.redisCallsPerRequest.toFixed(3)}`);
      console.log(`${outcome.setup.name.padEnd(46)} | ${String(row.concurrency).padStart(4)} | ${groups.join(', ')}`);
    }
  }
  console.log('\non/off req/s of each round (a round: one run of each key, back to back; the table gives their median):');
  for (const outcome of outcomes) {
    for (const row of outcome.rows)
      console.log(`${outcome.setup.name.padEnd(46)} | ${String(row.concurrency).padStart(4)} | ${row.ratios.map((ratio) => ratio.toFixed(2)).join(' ')}`);
  }
  console.log(`\nStreamed (${streamChunks} chunks), ${streamsPerKey} sequential streams per key: TTFB p50 ms`);
  for (const outcome of outcomes) console.log(`${outcome.setup.name.padEnd(46)} | off ${outcome.ttfb.off.toFixed(2)} | on ${outcome.ttfb.on.toFixed(2)}`);
  console.log(`\nTarget: limits on >= ${target}x the req/s of limits off`);
  for (const outcome of outcomes) {
    const worst = Math.min(...outcome.rows.map((row) => median(row.ratios)));
    const ofMedians = Math.min(...outcome.rows.map((row) => row.on.requestsPerSecond / row.off.requestsPerSecond));
    console.log(
      `${outcome.setup.name.padEnd(46)} | lowest on/off ${worst.toFixed(2)}x: ${worst >= target ? 'met' : 'NOT met'} (ratio of the medians: ${ofMedians.toFixed(2)}x)`,
    );
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const engine = await start(
    process.execPath,
    ['--import', here('../../bin/register-typescript.mjs'), here('./fake-engine-process.ts')],
    { CHUNKS: String(streamChunks) },
    /(http:\/\/\S+\/v1)/,
  ).match;
  const configDir = mkdtempSync(join(tmpdir(), 'bench-fleet-config-'));
  cleanups.push(() => rmSync(configDir, { recursive: true, force: true }));
  const configPath = join(configDir, 'config.yaml');
  writeFileSync(configPath, `models:\n  ${model}: { backend: openai-compatible, baseUrl: "${engine}" }\n`);
  const outcomes: Outcome[] = [];
  if (setupNames.includes('one')) outcomes.push(await measure(await oneNode(configPath)));
  const fleet = setupNames.includes('two') ? await twoNodes(configPath) : undefined;
  if (fleet !== undefined) outcomes.push(await measure(fleet));
  report(outcomes);
  console.log(`\nTotal run time ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(async () => {
    stopAll();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch((error: unknown) => console.error(error));
  });
