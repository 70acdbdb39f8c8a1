import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../bin/model-platform.js', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `model-platform <args>` to completion with only the given environment (plus PATH);
 * `binary`: another copy of bin/model-platform.js (a compiled package's).
 */
export function runCli(args: readonly string[], environment: NodeJS.ProcessEnv, binary = cli): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binary, ...args], { env: { PATH: process.env['PATH'], ...environment } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  /** Everything the process printed to stdout so far. */
  output(): string;
  /** Resolves with the exit code once the process has ended. */
  readonly exited: Promise<number | null>;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `model-platform serve` on a free loopback port and waits until it listens; `binary` as for
 * runCli. Model files are not fetched (no hub is reachable from tests) unless the environment asks.
 */
export function startServer(environment: NodeJS.ProcessEnv, args: readonly string[] = [], binary = cli): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binary, 'serve', ...args], {
      env: { PATH: process.env['PATH'], PORT: '0', HOST: '127.0.0.1', MODEL_PLATFORM_PULL: 'off', ...environment },
    });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match?.[1] !== undefined) {
        resolve({
          child,
          baseUrl: match[1],
          output: () => stdout,
          exited,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code} before listening:\n${stdout}\n${stderr}`)));
  });
}
