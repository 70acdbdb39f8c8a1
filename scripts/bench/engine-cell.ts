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

/** Names the cells treat apart: they are measured beside the platform, not judged as it is. */
export const targetNames = {
  direct: 'direct',
  syncWhole: 'platform syncAnswers: whole',
  directStreamed: 'direct, asked for a stream',
  routed: 'platform routed (2 deployments)',
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
  /** The platform's req/s over direct that a throughput cell must reach. */
  readonly minimumRatio: number;
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
  // Streamed calls are the same with either syncAnswers; direct calls asked for a stream stand for the default only in sync cells.
  const targets = cell.stream
    ? setting.targets.filter((target) => target.name !== targetNames.syncWhole && target.name !== targetNames.directStreamed)
    : setting.targets;
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
  for (let round = 0; round < cell.rounds; round += 1) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
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
  const roundsOf = (name: string) => sides.find((side) => side.target.name === name)?.rounds;
  const proxyRounds = sides.find((side) => isProxy(side.target))?.rounds;
  const streamedRounds = roundsOf(targetNames.directStreamed);
  const ratiosTo = (side: Side, others: readonly RoundResult[]) =>
    side.rounds.map((round, index) => round.requestsPerSecond / (others[index]?.requestsPerSecond ?? Number.NaN));
  const addedOver = (side: Side, others: readonly RoundResult[]) => median(side.rounds.map((round, index) => roundP50(round) - roundP50(others[index])));
  const verdicts: string[] = [];
  for (const side of sides) {
    const latency = pooledPercentiles(side.rounds, (round) => round.latenciesMs);
    const firstByte = pooledPercentiles(side.rounds, (round) => round.firstBytesMs);
    const answered = side.rounds.reduce((sum, round) => sum + round.requests, 0);
    const tokensPerAnswer = side.rounds.reduce((sum, round) => sum + round.completionTokens, 0) / answered;
    const ratios = ratiosTo(side, directRounds);
    const first = side === sides[0];
    // Pairs of single requests are too many to list, and their req/s is only the inverse of a latency.
    const each = cell.target === 'throughput' ? ` (${ratios.map((ratio) => fixed(ratio, 2)).join(' ')})` : '';
    const versus = first ? '' : `${fixed(median(ratios), 3)}x${each}`;
    const cpu = side.pid === undefined ? '' : fixed(side.cpuMs / answered, 2);
    const engineCpu = setting.enginePid === undefined ? '' : fixed(side.engineCpuMs / answered, 1);
    console.log(
      `${side.target.name.padEnd(nameWidth)} | ${fixed(median(side.rounds.map((round) => round.requestsPerSecond))).padStart(6)} | ${fixed(latency.p50, 2).padStart(7)} | ${fixed(latency.p99, 2).padStart(7)} | ${fixed(firstByte.p50, 2).padStart(8)} | ${fixed(tokensPerAnswer).padStart(13)} | ${cpu.padStart(10)} | ${engineCpu.padStart(17)} | ${versus}`,
    );
    if (first) continue;
    const label = `${setting.label}: ${side.target.name}, max_tokens ${cell.maxTokens} ${mode} c${cell.concurrency}`;
    const againstDirect =
      cell.target === 'latency' ? `${signed(addedOver(side, directRounds))} ms over direct` : `${fixed(median(ratios), 3)}x the direct req/s`;
    if (isProxy(side.target)) {
      // The floor, not judged: what one minimal extra hop costs on this host.
      verdicts.push(`${label} (the floor, no target): ${againstDirect}`);
      continue;
    }
    if (side.target.name === targetNames.directStreamed) {
      // Its CPU per answer moves far less with the host's load than its req/s: the cost of streaming itself.
      const direct = sides[0];
      const cpuRatio =
        setting.enginePid === undefined || direct === undefined ? '' : `; the engine's CPU per answer ${fixed(side.engineCpuMs / direct.engineCpuMs, 3)}x`;
      verdicts.push(
        `${label} (the engine's own cost of streaming a whole answer, no target): ${againstDirect.replace('direct', 'direct whole answers')}${cpuRatio}`,
      );
      continue;
    }
    if (side.target.name === targetNames.routed) {
      const overSingle = median(ratiosTo(side, roundsOf('platform') ?? []));
      verdicts.push(`${label}: ${fixed(overSingle, 3)}x the one-deployment platform's req/s (target >= 0.98x): ${overSingle >= 0.98 ? 'met' : 'NOT met'}`);
      continue;
    }
    const besideStreamed = streamedRounds !== undefined && side.target.name !== targetNames.syncWhole;
    if (cell.target === 'throughput') {
      const ratio = median(ratios);
      // Beside the floor: the platform's req/s over the proxy's, round by round.
      const overProxy = proxyRounds === undefined ? '' : `; ${fixed(median(ratiosTo(side, proxyRounds)), 3)}x the proxy's`;
      const overStreamed = besideStreamed ? `; ${fixed(median(ratiosTo(side, streamedRounds)), 3)}x the direct streamed calls'` : '';
      const minimum = setting.minimumRatio;
      verdicts.push(`${label}: ${againstDirect}${overProxy}${overStreamed} (target >= ${minimum}x direct): ${ratio >= minimum ? 'met' : 'NOT met'}`);
    } else {
      const added = addedOver(side, directRounds);
      const overProxy = proxyRounds === undefined ? '' : `; ${signed(addedOver(side, proxyRounds))} ms over the proxy`;
      const overStreamed = besideStreamed ? `; ${signed(addedOver(side, streamedRounds))} ms over the direct streamed calls` : '';
      verdicts.push(
        `${label}: ${signed(added)} ms over direct, median of ${cell.rounds} pairs (p50 ${fixed(latency.p50, 2)} against ${fixed(directP50, 2)}: ${signed(latency.p50 - directP50)})${overProxy}${overStreamed} (target <= +1 ms): ${added <= 1 ? 'met' : 'NOT met'}`,
      );
    }
  }
  return verdicts;
}
