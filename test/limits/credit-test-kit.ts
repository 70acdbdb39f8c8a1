import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSettings } from '../../src/core/config/settings.ts';
import type { TaskHandler } from '../../src/core/tasks/task.ts';
import { openPlatform, type Platform } from '../../src/platform/open-platform.ts';
import { databaseTargets } from '../helpers/test-databases.ts';
import { fastTuning } from '../tasks/task-test-kit.ts';

/** Polls `read` until `done` says yes; fails after 10 s with the last value. */
export async function waitFor<Value>(read: () => Promise<Value>, done: (value: Value) => boolean, what: string): Promise<Value> {
  const until = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) assert.fail(`${what}: still ${JSON.stringify(value)} after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Platforms sharing one database, with task handlers; the first runs the workers. */
export interface CreditNodes {
  readonly name: string;
  open(): Promise<void>;
  first(): Platform;
  second(): Platform;
  close(): Promise<void>;
}

/**
 * Per database target: two nodes on PostgreSQL; on SQLite (the single-node store) one platform
 * plays both (two SQLite connections in one thread would block each other's transactions).
 */
export function creditNodes(handlers: readonly TaskHandler[]): CreditNodes[] {
  return databaseTargets.map((target) => {
    let sharedDir = '';
    let databaseUrl: string | undefined;
    let nodes: Platform[] = [];
    const node = (index: number) => {
      const platform = nodes[index];
      if (platform === undefined) throw new Error('the nodes are not open');
      return platform;
    };
    return {
      name: `${target.name}, ${target.name === 'postgres' ? 'two nodes' : 'one node'}`,
      async open() {
        sharedDir = mkdtempSync(join(tmpdir(), 'model-platform-credit-'));
        databaseUrl = await target.create();
        const masterKey = randomBytes(32).toString('hex');
        for (const index of target.name === 'postgres' ? [0, 1] : [0]) {
          const environment: NodeJS.ProcessEnv = {
            MODEL_PLATFORM_DATA_DIR: databaseUrl === undefined ? sharedDir : join(sharedDir, `node-${index}`),
            MODEL_PLATFORM_MASTER_KEY: masterKey,
            ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
          };
          nodes.push(await openPlatform(readSettings(environment), environment, { taskHandlers: [...handlers], taskTuning: fastTuning }));
        }
        node(0).tasks.start();
        if (nodes.length === 1) nodes.push(node(0));
      },
      first: () => node(0),
      second: () => node(1),
      async close() {
        for (const platform of new Set(nodes)) await platform.close();
        nodes = [];
        await target.drop(databaseUrl);
        rmSync(sharedDir, { recursive: true, force: true });
      },
    };
  });
}
