// One cell of bench:engine (a max_tokens, sync or streamed, a concurrency): its rounds, the
// targets taking turns, then its table and its verdicts against the targets.
import type { Agent } from 'node:http';
import { loadavg } from 'node:os';
import { agentFor, pooledPercentiles, runRound, type AnswerTarget, type RoundResult } from './answer-load.ts';
import { cpuTimes } from './bench-processes.ts';
import { median } from './load.ts';

export interface Cell {
  readonly maxTokens: number;
  readonly stream: boolean;
  readonly concurrency: number;
  readonly rounds: number;
  readonly requestsPerRound: number;
  /** Judged on throughput (req/s against direct) or on added p50 latency. */
  readonly target: 'throughput' | 'latency';
}

/**
 * Names the cells treat apart. In a sync cell the platform as shipped asks llama-server for a
 * stream and puts the answer together itself (`syncAnswers: streamed`, so that a departed client
 * frees its slot), while direct calls and the proxy get a whole answer: the engine does more work
 * for the platform. Two more targets separate the hop from that work: the platform with
 * `syncAnswers: whole`, whose engine answers exactly as the proxy's does (the like-for-like hop),
 * and direct calls that ask for a stream, the engine's own work for the default.
 */
export const targetNames = {
  direct: 'direct',
  syncWhole: 'platform, whole answers (like the proxy)',
  directStreamed: 'direct, asked for a stream',
  routed: 'platform routed (2 deployments)',
  floor: 'bare Fastify route (no platform)',
} as const;

export const isProxy = (target: AnswerTarget) => target.name.startsWith('node proxy');
const isDirect = (target: AnswerTarget) => target.name === targetNames.direct || target.name === targetNames.directStreamed;

/** What a cell needs from its run: the targets, their bodies, their processes, and the bar the platform must clear. */
export interface CellSetting {
  /** The targets, direct calls first. */
  readonly targets: readonly AnswerTarget[];
  /** The target with its bodies for a max_tokens: the engine's request for direct calls and the proxy, the platform's for platforms. */
  readonly withBodies: (target: AnswerTarget, maxTokens: number, direct: boolean) => AnswerTarget;
  /** The process in front of the engine by target name, for its CPU time. */
  readonly pids: ReadonlyMap<string, number>;
  /** The engine's process: its CPU time while a target's rounds ran is what that target's calls cost it. */
  readonly enginePid: number | undefined;
  /** The platform's req/s over the baseline that a throughput cell must reach. */
  readonly minimumRatio: number;
  /**
   * What the platform is judged against: `proxy` (the tiny model: the hop's own cost, against the
   * floor of any Node hop, in req/s, added p50 and CPU a call) or `direct` (a realistic model:
   * what a user sees).
   */
  readonly judgedAgainst: 'proxy' | 'direct';
  /** Names the cells in the verdicts, e.g. the model's size. */
  readonly label: string;
  /** Printed before each cell's table: the label and what more there is to say about the model. */
  readonly heading: string;
}

interface Side {
  readonly target: AnswerTarget;
  /** Whether its requests ask for a stream (direct calls standing for the platform's default sync answers do in sync cells). */
  readonly stream: boolean;
  readonly agent: Agent | undefined;
  /** The process in front of the engine, for its CPU time; none for direct calls. */
  readonly pid: number | undefined;
  readonly rounds: RoundResult[];
  cpuMs: number;
  engineCpuMs: number;
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;
const roundP50 = (round: RoundResult | undefined) => (round === undefined ? Number.NaN : pooledPercentiles([round], (each) => each.latenciesMs).p50);
export const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

/** Runs the cell's rounds, prints its table and returns its verdicts. */
export async function measureCell(cell: Cell, setting: CellSetting): Promise<string[]> {
  const requests = cell.requestsPerRound;
  // Streamed calls are the same with either syncAnswers; direct calls asked for a stream stand for
  // the default only in sync cells; the bare route answers whole only.
  const syncOnly: readonly string[] = [targetNames.syncWhole, targetNames.directStreamed, targetNames.floor];
  const targets = cell.stream ? setting.targets.filter((target) => !syncOnly.includes(target.name)) : setting.targets;
  const sides: Side[] = targets.map((target) => {
    const stream = cell.stream || target.name === targetNames.directStreamed;
    return {
      target: setting.withBodies(target, cell.maxTokens, isDirect(target) || isProxy(target)),
      stream,
      agent: agentFor(target, stream, cell.concurrency),
      pid: setting.pids.get(target.name),
      rounds: [],
      cpuMs: 0,
      engineCpuMs: 0,
    };
  });
  // One round's worth each first: new connections, the engine's slots and prompt cache.
  for (const side of sides) await runRound(side.target, side.stream, cell.concurrency, requests, side.agent);
  let order: readonly Side[] = sides;
  for (let round = 0; round < cell.rounds; round += 1) {
    // Rounds go in pairs: a shuffled order, then the same reversed, so each target's mean place is
    // the same in every pair and its neighbours change from pair to pair. What a call leaves the
    // shared engine and cores to finish (a streamed answer's closed connection, a slot's release)
    // otherwise always fell on the same neighbours: with one order and its reverse, the target
    // listed after the direct calls always ran beside them.
    order = round % 2 === 0 ? shuffled(sides) : [...order].reverse();
    for (const side of order) {
      const measured = [side.pid, setting.enginePid].filter((pid) => pid !== undefined);
      const before = cpuTimes(measured);
      side.rounds.push(await runRound(side.target, side.stream, cell.concurrency, requests, side.agent));
      const after = cpuTimes(measured);
      const spent = (pid: number | undefined) => (pid === undefined ? 0 : (after.get(pid) ?? 0) - (before.get(pid) ?? 0));
      side.cpuMs += spent(side.pid);
      side.engineCpuMs += spent(setting.enginePid);
    }
  }
  for (const side of sides) side.agent?.destroy();
  return report(cell, setting, sides);
}

/** A copy of `items` in a random order (Fisher-Yates). */
function shuffled<Item>(items: readonly Item[]): Item[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as Item, copy[index] as Item];
  }
  return copy;
}

/** On the tiny model the hop may add this much to the proxy's p50 … */
const maxAddedOverProxyMs = 1;
/** … and cost this many times the proxy's CPU a call. */
const maxCpuOverProxy = 1.5;
/** Below this much of the proxy's CPU time (Linux counts 10 ms ticks) a CPU ratio is guesswork. */
const minimumProxyCpuMs = 200;

function report(cell: Cell, setting: CellSetting, sides: readonly Side[]): string[] {
  const mode = cell.stream ? 'streamed' : 'sync';
  const nameWidth = Math.max(6, ...sides.map((side) => side.target.name.length));
  console.log(
    `\n${setting.heading}, max_tokens ${cell.maxTokens}, ${mode}, concurrency ${cell.concurrency}: ${cell.rounds} rounds of ${cell.requestsPerRound} request(s) per target (load ${load()})`,
  );
  console.log(
    `${'target'.padEnd(nameWidth)} |  req/s |  p50 ms |  p99 ms | TTFB p50 | tokens/answer | CPU ms/req | engine CPU ms/req | vs direct: median (each round)`,
  );
  const directRounds = sides[0]?.rounds ?? [];
  const directP50 = pooledPercentiles(directRounds, (round) => round.latenciesMs).p50;
  const sideNamed = (name: string) => sides.find((side) => side.target.name === name);
  const proxy = sides.find((side) => isProxy(side.target));
  const streamedRounds = sideNamed(targetNames.directStreamed)?.rounds;
  const ratiosTo = (side: Side, others: readonly RoundResult[]) =>
    side.rounds.map((round, index) => round.requestsPerSecond / (others[index]?.requestsPerSecond ?? Number.NaN));
  const addedOver = (side: Side, others: readonly RoundResult[]) => median(side.rounds.map((round, index) => roundP50(round) - roundP50(others[index])));
  const answeredBy = (side: Side) => side.rounds.reduce((sum, round) => sum + round.requests, 0);
  const cpuOverProxy = (side: Side) =>
    proxy === undefined || side.pid === undefined ? undefined : side.cpuMs / answeredBy(side) / (proxy.cpuMs / answeredBy(proxy));
  /** The CPU a call beside the proxy's, unjudged; a note instead where the proxy's ticks are too few. */
  const cpuBesideProxy = (side: Side) => {
    const ratio = cpuOverProxy(side);
    if (ratio === undefined || proxy === undefined) return '';
    return proxy.cpuMs < minimumProxyCpuMs
      ? `; CPU a call ${proxy.cpuMs > 0 ? `${fixed(ratio, 2)}x the proxy's ` : ''}(too few of the proxy's CPU ticks to judge)`
      : `; CPU a call ${fixed(ratio, 2)}x the proxy's`;
  };
  for (const side of sides) {
    const latency = pooledPercentiles(side.rounds, (round) => round.latenciesMs);
    const firstByte = pooledPercentiles(side.rounds, (round) => round.firstBytesMs);
    const answered = answeredBy(side);
    const tokensPerAnswer = side.rounds.reduce((sum, round) => sum + round.completionTokens, 0) / answered;
    const ratios = ratiosTo(side, directRounds);
    // Pairs of single requests are too many to list, and their req/s is only the inverse of a latency.
    const each = cell.target === 'throughput' ? ` (${ratios.map((ratio) => fixed(ratio, 2)).join(' ')})` : '';
    const versus = side === sides[0] ? '' : `${fixed(median(ratios), 3)}x${each}`;
    const cpu = side.pid === undefined ? '' : fixed(side.cpuMs / answered, 2);
    const engineCpu = setting.enginePid === undefined ? '' : fixed(side.engineCpuMs / answered, 1);
    console.log(
      `${side.target.name.padEnd(nameWidth)} | ${fixed(median(side.rounds.map((round) => round.requestsPerSecond))).padStart(6)} | ${fixed(latency.p50, 2).padStart(7)} | ${fixed(latency.p99, 2).padStart(7)} | ${fixed(firstByte.p50, 2).padStart(8)} | ${fixed(tokensPerAnswer).padStart(13)} | ${cpu.padStart(10)} | ${engineCpu.padStart(17)} | ${versus}`,
    );
  }
  if (!cell.stream && sideNamed(targetNames.syncWhole) !== undefined) {
    console.log(
      `  'platform' as shipped asks llama-server for a stream and puts the answer together (the engine's work of '${targetNames.directStreamed}'); '${targetNames.syncWhole}' is the platform with syncAnswers: whole, whose engine answers whole as it does to the proxy: the like-for-like hop.`,
    );
  }

  const verdicts: string[] = [];
  for (const side of sides.slice(1)) {
    const name = side.target.name;
    const label = `${setting.label}: ${name}, max_tokens ${cell.maxTokens} ${mode} c${cell.concurrency}`;
    const againstDirect =
      cell.target === 'latency'
        ? `${signed(addedOver(side, directRounds))} ms over direct`
        : `${fixed(median(ratiosTo(side, directRounds)), 3)}x the direct req/s`;
    if (isProxy(side.target)) {
      // The floor, not judged: what one minimal extra hop costs on this host.
      verdicts.push(`${label} (the floor, no target): ${againstDirect}`);
      continue;
    }
    if (name === targetNames.directStreamed) {
      // Its CPU per answer moves far less with the host's load than its req/s: the cost of streaming itself.
      const direct = sides[0];
      const cpuRatio =
        setting.enginePid === undefined || direct === undefined ? '' : `; the engine's CPU per answer ${fixed(side.engineCpuMs / direct.engineCpuMs, 3)}x`;
      verdicts.push(
        `${label} (the engine's own cost of streaming a whole answer, no target): ${againstDirect.replace('direct', 'direct whole answers')}${cpuRatio}`,
      );
      continue;
    }
    if (name === targetNames.floor) {
      // What the libraries alone cost (Fastify, the chat schema, the engine exchange): the part of the
      // platform's CPU a call that no platform logic adds.
      verdicts.push(`${label} (the libraries' floor, no target): ${againstDirect}${cpuBesideProxy(side)}`);
      continue;
    }
    if (name === targetNames.routed) {
      const overSingle = median(ratiosTo(side, sideNamed('platform')?.rounds ?? []));
      verdicts.push(`${label}: ${fixed(overSingle, 3)}x the one-deployment platform's req/s (target >= 0.98x): ${overSingle >= 0.98 ? 'met' : 'NOT met'}`);
      continue;
    }
    // What the platform's hop is compared with: the proxy where the engine does the same work for
    // both (streamed calls; whole answers), else direct calls that ask for a stream as it does.
    const likeForLike = cell.stream || name === targetNames.syncWhole;
    const overProxy = (figure: 'req/s' | 'p50') =>
      proxy === undefined
        ? ''
        : figure === 'req/s'
          ? `${fixed(median(ratiosTo(side, proxy.rounds)), 3)}x the proxy's req/s`
          : `${signed(addedOver(side, proxy.rounds))} ms over the proxy`;
    const overStreamed =
      likeForLike || streamedRounds === undefined
        ? ''
        : cell.target === 'throughput'
          ? `; ${fixed(median(side.rounds.map((round, index) => round.requestsPerSecond / (streamedRounds[index]?.requestsPerSecond ?? Number.NaN))), 3)}x the direct streamed calls'`
          : `; ${signed(median(side.rounds.map((round, index) => roundP50(round) - roundP50(streamedRounds[index]))))} ms over the direct streamed calls`;
    if (setting.judgedAgainst === 'proxy' && proxy !== undefined) {
      if (!likeForLike) {
        const figure = cell.target === 'throughput' ? 'req/s' : 'p50';
        verdicts.push(
          `${label} (the engine streams for it, for the proxy not: no target, see '${targetNames.syncWhole}'): ${againstDirect}; ${overProxy(figure)}${overStreamed}${cpuBesideProxy(side)}`,
        );
        continue;
      }
      const hop =
        cell.target === 'throughput'
          ? judged(overProxy('req/s'), median(ratiosTo(side, proxy.rounds)) >= setting.minimumRatio, `>= ${setting.minimumRatio}x`)
          : judged(overProxy('p50'), addedOver(side, proxy.rounds) <= maxAddedOverProxyMs, `<= +${maxAddedOverProxyMs} ms`);
      const ratio = cpuOverProxy(side);
      const cpu =
        ratio === undefined || proxy.cpuMs < minimumProxyCpuMs
          ? cpuBesideProxy(side)
          : `; CPU a call ${judged(`${fixed(ratio, 2)}x the proxy's`, ratio <= maxCpuOverProxy, `<= ${maxCpuOverProxy}x`)}`;
      verdicts.push(`${label} (like-for-like with the proxy): ${againstDirect}; ${hop}${cpu}`);
      continue;
    }
    const besideProxy = proxy === undefined ? '' : `; ${overProxy(cell.target === 'throughput' ? 'req/s' : 'p50')}`;
    if (cell.target === 'throughput') {
      const ratio = median(ratiosTo(side, directRounds));
      verdicts.push(`${label}: ${judged(againstDirect, ratio >= setting.minimumRatio, `>= ${setting.minimumRatio}x direct`)}${besideProxy}${overStreamed}`);
    } else {
      const latency = pooledPercentiles(side.rounds, (round) => round.latenciesMs);
      const added = addedOver(side, directRounds);
      verdicts.push(
        `${label}: ${judged(`${signed(added)} ms over direct, median of ${cell.rounds} pairs (p50 ${fixed(latency.p50, 2)} against ${fixed(directP50, 2)}: ${signed(latency.p50 - directP50)})`, added <= 1, '<= +1 ms')}${besideProxy}${overStreamed}`,
      );
    }
  }
  return verdicts;
}

const judged = (figure: string, met: boolean, target: string) => `${figure} (target ${target}): ${met ? 'met' : 'NOT met'}`;
