// Child processes for the benchmarks: start one and wait for a line it prints (or its /healthz),
// read their CPU time.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';

const stopping: (() => void)[] = [];

export interface Started {
  readonly pid: number;
  /** The first group of the first output matching the pattern. */
  readonly match: Promise<string>;
  /** Rejects when the process exits before being stopped. */
  readonly exited: Promise<never>;
}

export function start(command: string, args: string[], environment: NodeJS.ProcessEnv, pattern: RegExp): Started {
  const child = spawn(command, args, { env: { ...process.env, ...environment }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stopped = false;
  stopping.push(() => {
    stopped = true;
    child.kill('SIGTERM');
  });
  let output = '';
  const exited = new Promise<never>((_resolve, reject) =>
    child.on('exit', (code) => {
      if (!stopped) reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${output}`));
    }),
  );
  exited.catch(() => undefined);
  const match = new Promise<string>((resolve) => {
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
      const found = pattern.exec(output)?.[1];
      if (found !== undefined) resolve(found);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
  });
  const matched = Promise.race([match, exited]);
  matched.catch(() => undefined);
  return { pid: child.pid ?? 0, match: matched, exited };
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Stops every process `start` started. */
export function stopAll(): void {
  for (const stop of stopping) stop();
}

/** CPU time (user + system) of each process so far, in ms; Linux counts it in 10 ms ticks. */
export function cpuTimes(pids: readonly number[]): Map<number, number> {
  const times = new Map<number, number>();
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      times.set(pid, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // The process ended (a pooled database connection closed): its time is lost to both sides alike.
    }
  }
  return times;
}

/** Waits (up to 10 s unless told) until a started server answers `GET /healthz`. */
export async function waitForHealth(origin: string, timeoutMs = 10_000): Promise<void> {
  for (let attempt = 0; attempt < timeoutMs / 100; attempt += 1) {
    if (
      await fetch(`${origin}/healthz`).then(
        (response) => response.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${origin} did not become healthy`);
}
