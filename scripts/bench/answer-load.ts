// Load for benchmarks against a real engine: every answer is read whole and its completion token
// count taken from its usage, so a run shows that each side produced the same work.
import { Agent, request } from 'node:http';
import { percentile } from './load.ts';

export interface AnswerTarget {
  readonly name: string;
  /** Full URL of the chat completions endpoint. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The request bodies this target takes: sync and streamed. */
  readonly body: (stream: boolean) => string;
  /**
   * Whether a streamed answer may be followed by another request on its connection. llama.cpp's
   * server closes the connection after every streamed answer although its headers say keep-alive;
   * a client that reused it would fail about half of its requests, so those go on a connection of
   * their own each, as any client of that server has to. (Node's `keepAlive: false` agent is no
   * way to do that here: with 8 streams at once llama-server hung up on 20-30% of its fresh
   * connections before answering, where curl, or a kept-alive agent used once, had none.)
   */
  readonly keepsStreamsAlive: boolean;
}

export interface Answer {
  readonly totalMs: number;
  readonly firstByteMs: number;
  readonly completionTokens: number;
}

export interface RoundResult {
  readonly requestsPerSecond: number;
  readonly latenciesMs: readonly number[];
  readonly firstBytesMs: readonly number[];
  readonly completionTokens: number;
  readonly requests: number;
}

const answerTimeoutMs = 120_000;
const keptTailBytes = 2048;

/**
 * One POST read to its end; fails on a status other than 200 or an answer without usage. Without
 * `keptAgent`, on a connection of its own, closed after it.
 */
export async function postAnswer(target: AnswerTarget, body: string, keptAgent: Agent | undefined): Promise<Answer> {
  const agent = keptAgent ?? new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    return await postOnce(target, body, agent);
  } finally {
    if (keptAgent === undefined) agent.destroy();
  }
}

function postOnce(target: AnswerTarget, body: string, agent: Agent): Promise<Answer> {
  const url = new URL(target.url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        timeout: answerTimeoutMs,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...target.headers },
      },
      (incoming) => {
        let firstByteMs = -1;
        // Usage comes last (a sync answer's end, a stream's final chunk): only the tail is kept.
        let tail = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => {
          if (firstByteMs < 0) firstByteMs = performance.now() - started;
          tail = (tail + chunk).slice(-keptTailBytes);
        });
        incoming.on('end', () => {
          if (incoming.statusCode !== 200) {
            reject(new Error(`${target.name}: HTTP ${incoming.statusCode}: ${tail.slice(0, 500)}`));
            return;
          }
          const tokens = /"completion_tokens":\s*(\d+)/.exec(tail)?.[1];
          if (tokens === undefined) reject(new Error(`${target.name}: an answer without usage: …${tail.slice(-300)}`));
          else resolve({ totalMs: performance.now() - started, firstByteMs, completionTokens: Number(tokens) });
        });
        incoming.on('error', (error) => reject(new Error(`${target.name}: ${error.message}`)));
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`${target.name}: no answer within ${answerTimeoutMs} ms`)));
    outgoing.on('error', (error) => reject(new Error(`${target.name}: ${error.message} (${body.includes('"stream":true') ? 'streamed' : 'sync'})`)));
    outgoing.end(body);
  });
}

/** The kept-alive connections a target's requests go on for one cell, or none: a new connection per request. */
export function agentFor(target: AnswerTarget, stream: boolean, concurrency: number): Agent | undefined {
  return stream && !target.keepsStreamsAlive ? undefined : new Agent({ keepAlive: true, maxSockets: concurrency });
}

/** `requests` answers with `concurrency` in flight. */
export async function runRound(target: AnswerTarget, stream: boolean, concurrency: number, requests: number, agent: Agent | undefined): Promise<RoundResult> {
  const body = target.body(stream);
  const latenciesMs: number[] = [];
  const firstBytesMs: number[] = [];
  let completionTokens = 0;
  let sent = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < requests) {
        sent += 1;
        const answer = await postAnswer(target, body, agent);
        latenciesMs.push(answer.totalMs);
        firstBytesMs.push(answer.firstByteMs);
        completionTokens += answer.completionTokens;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { requestsPerSecond: requests / seconds, latenciesMs, firstBytesMs, completionTokens, requests };
}

/** p50 and p99 of all the latencies of several rounds. */
export function pooledPercentiles(rounds: readonly RoundResult[], pick: (round: RoundResult) => readonly number[]): { p50: number; p99: number } {
  const all = rounds.flatMap((round) => [...pick(round)]).sort((left, right) => left - right);
  return { p50: percentile(all, 0.5), p99: percentile(all, 0.99) };
}
