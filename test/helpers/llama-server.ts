import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A real llama.cpp `llama-server` on loopback, for tests that run the platform against a real
 * OpenAI-compatible engine. The binary comes from `LLAMA_SERVER_BIN` (`npm test` builds it with
 * scripts/test/build-llama-server.sh and sets it).
 */
export interface LlamaServerOptions {
  readonly binary: string;
  readonly modelPath: string;
  /** The model name the server answers to (`-a`), the platform's `upstreamModel`. */
  readonly alias: string;
  /** `-c`: the context of all slots together; with `--kv-unified` each slot may use all of it. */
  readonly contextSize?: number;
  /** `-np`: requests served at once. */
  readonly parallel?: number;
  /** More command-line arguments. */
  readonly extraArgs?: readonly string[];
  /** How long to wait for `GET /health` to answer 200 (loading the tiny model takes well under a second). */
  readonly startTimeoutMs?: number;
}

export interface LlamaServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** `http://127.0.0.1:<port>/v1`, the platform's `baseUrl` for it. */
  readonly baseUrl: string;
  readonly alias: string;
  /** The last lines the server logged (it logs to stderr), for failure messages. */
  log(): string;
  /** The running server's process id (a benchmark reads its CPU time); undefined while none runs. */
  pid(): number | undefined;
  /** Kills the server (SIGTERM, then SIGKILL) and starts it again on the same port. */
  restart(): Promise<void>;
  /** Sends the server `signal` (SIGKILL: a crash) and resolves once it has exited; `restart()` starts it again on the same port. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the process has exited. */
  stop(): Promise<void>;
}

const logLimit = 64 * 1024;
const stopGraceMs = 3_000;
const healthPollMs = 50;

/** The llama-server binary named by `LLAMA_SERVER_BIN`, when that is an executable file. */
export function findLlamaServer(environment: NodeJS.ProcessEnv = process.env): string | undefined {
  const binary = environment['LLAMA_SERVER_BIN'];
  if (binary === undefined || binary === '') return undefined;
  try {
    accessSync(binary, constants.X_OK);
    return binary;
  } catch {
    return undefined;
  }
}

/**
 * Whether the real-engine tests must run: in CI (the `CI` variable, as CI services set it) or
 * when `REQUIRE_REAL_ENGINE=1` (`.ci/run` sets it). `REQUIRE_REAL_ENGINE=0` lets them skip.
 */
export function realEngineRequired(environment: NodeJS.ProcessEnv = process.env): boolean {
  const required = environment['REQUIRE_REAL_ENGINE'];
  if (required !== undefined && required !== '') return required !== '0' && required.toLowerCase() !== 'false';
  const ci = environment['CI'];
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/** Starts llama-server on a free loopback port and waits until its model is loaded. */
export async function startLlamaServer(options: LlamaServerOptions): Promise<LlamaServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  let logText = '';
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const launch = async (): Promise<void> => {
    const args = [
      '-m',
      options.modelPath,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--jinja',
      '-c',
      String(options.contextSize ?? 2048),
      '-np',
      String(options.parallel ?? 4),
      '--kv-unified',
      '--reasoning-format',
      'deepseek',
      '-t',
      '1',
      '--slots',
      '--metrics',
      '--no-webui',
      '-a',
      options.alias,
      ...(options.extraArgs ?? []),
    ];
    const server = spawn(options.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = server;
    if (server.pid !== undefined) killWhenOrphaned(server.pid);
    const keep = (chunk: Buffer): void => {
      logText = (logText + chunk.toString('utf8')).slice(-logLimit);
    };
    server.stdout.on('data', keep);
    server.stderr.on('data', keep);
    let exitCode: string | undefined;
    exited = new Promise<void>((resolve) => {
      server.once('exit', (code, signal) => {
        exitCode = signal ?? String(code);
        resolve();
      });
    });
    const spawnError = new Promise<Error>((resolve) => server.once('error', resolve));
    const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
    let failure: Error | undefined;
    void spawnError.then((error) => (failure = error));
    while (Date.now() < deadline) {
      if (failure !== undefined) throw new Error(`llama-server could not be started (${options.binary}): ${failure.message}`);
      if (exitCode !== undefined) throw new Error(`llama-server exited (${exitCode}) before it was ready:\n${tail(logText)}`);
      if (await healthy(origin)) return;
      await sleep(healthPollMs);
    }
    await stopProcess();
    throw new Error(`llama-server did not answer GET /health with 200 within ${options.startTimeoutMs ?? 30_000} ms:\n${tail(logText)}`);
  };

  const stopProcess = async (): Promise<void> => {
    const running = child;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    running.kill('SIGTERM');
    const stopped = await Promise.race([exited.then(() => true), sleep(stopGraceMs).then(() => false)]);
    if (!stopped) {
      running.kill('SIGKILL');
      await exited;
    }
  };

  await launch();
  return {
    port,
    origin,
    baseUrl: `${origin}/v1`,
    alias: options.alias,
    log: () => tail(logText),
    pid: () => child?.pid,
    async restart() {
      await stopProcess();
      await launch();
    },
    async kill(signal) {
      const running = child;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
      running.kill(signal);
      await exited;
    },
    stop: stopProcess,
  };
}

/**
 * A test run killed from outside (a timeout, SIGKILL) runs no cleanup, and its llama-server would
 * live on, holding a port and a CPU: a small watchdog kills the server within a second of this
 * process ending, and ends itself when the server does.
 */
function killWhenOrphaned(serverPid: number): void {
  const script = `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${serverPid} 2>/dev/null; do sleep 1; done; kill -KILL ${serverPid} 2>/dev/null`;
  const watchdog = spawn('sh', ['-c', script], { stdio: 'ignore' });
  watchdog.on('error', () => undefined);
  watchdog.unref();
}

async function healthy(origin: string): Promise<boolean> {
  try {
    const response = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** A port nothing listens on right now: bound to 0, read, released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function tail(text: string, lines = 40): string {
  return text.split('\n').slice(-lines).join('\n');
}
