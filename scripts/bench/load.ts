import { Agent, request } from 'node:http';

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface Target {
  readonly name: string;
  /** Full URL of the chat completions endpoint. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** One POST; resolves with the time to the first body byte and the total time, in ms. */
export function post(target: Target, body: string, agent: Agent): Promise<{ firstByteMs: number; totalMs: number; chunks: number }> {
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
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...target.headers },
      },
      (incoming) => {
        let firstByteMs = 0;
        let chunks = 0;
        incoming.on('data', () => {
          if (chunks++ === 0) firstByteMs = performance.now() - started;
        });
        incoming.on('end', () => {
          if (incoming.statusCode !== 200) reject(new Error(`${target.name}: HTTP ${incoming.statusCode}`));
          else resolve({ firstByteMs, totalMs: performance.now() - started, chunks });
        });
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * `total` requests with `concurrency` in flight; latency percentiles and throughput. On its own
 * connections, or on `keptAgent`'s (left open: runs of one target in turn reuse their sockets).
 */
export async function runLoad(target: Target, body: string, concurrency: number, total: number, keptAgent?: Agent): Promise<LoadResult> {
  const agent = keptAgent ?? new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let sent = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < total) {
        sent += 1;
        latencies.push((await post(target, body, agent)).totalMs);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (keptAgent === undefined) agent.destroy();
  latencies.sort((left, right) => left - right);
  return {
    requestsPerSecond: total / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}

/** The median of figures in any order (of the rounds of a run). */
export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((left, right) => left - right),
    0.5,
  );
}

export function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}
