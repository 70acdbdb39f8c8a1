import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { PlatformConfig } from '../../src/core/config/config.schema.ts';
import { readSettings } from '../../src/core/config/settings.ts';
import type { KeyPolicy } from '../../src/core/limits/key-policy.ts';
import type { App } from '../../src/http/app-types.ts';
import { buildApp } from '../../src/platform/build-app.ts';
import { ResponseContract } from '../helpers/response-contract.ts';
import { openPlatform, type Platform } from '../../src/platform/open-platform.ts';
import { databaseTargets } from '../helpers/test-databases.ts';

interface PlatformNode {
  readonly app: App;
  readonly platform: Platform;
  /** `http://127.0.0.1:<port>`: a real listener, so streams and client disconnects are real. */
  readonly baseUrl: string;
}

export interface TwoNodes {
  readonly nodes: readonly [PlatformNode, PlatformNode];
  /** 'postgres' when TEST_DATABASE_URL is set (CI), else one SQLite file both nodes open. */
  readonly storage: 'postgres' | 'sqlite';
  /** A new key with this policy; returns `<id>.<secret>`. */
  createKey(policy: KeyPolicy): Promise<string>;
  close(): Promise<void>;
}

/**
 * Two platform instances in this process, as two replicas behind a load balancer: one database
 * (PostgreSQL when available) and one Redis, each with its own HTTP listener, blob directory and
 * caches. What one node counts, the other must see.
 */
export async function startTwoNodes(options: { redisUrl: string; config: PlatformConfig }): Promise<TwoNodes> {
  const target = databaseTargets.find((candidate) => candidate.name === 'postgres') ?? databaseTargets[0];
  if (target === undefined) throw new Error('no database target');
  const databaseUrl = await target.create();
  const sharedDir = mkdtempSync(join(tmpdir(), 'model-platform-fleet-'));
  const configPath = join(sharedDir, 'config.yaml');
  writeFileSync(configPath, stringify(options.config));
  const masterKey = randomBytes(32).toString('hex');
  const nodes: PlatformNode[] = [];
  // Both nodes' answers are checked against their routes' response schemas, as on a test platform.
  const contract = new ResponseContract();
  for (const index of [0, 1]) {
    const environment: NodeJS.ProcessEnv = {
      // SQLite: both nodes open the same file; PostgreSQL: each its own data dir for blobs.
      MODEL_PLATFORM_DATA_DIR: databaseUrl === undefined ? sharedDir : join(sharedDir, `node-${index}`),
      MODEL_PLATFORM_CONFIG: configPath,
      MODEL_PLATFORM_MASTER_KEY: masterKey,
      REDIS_URL: options.redisUrl,
      ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    };
    const platform = await openPlatform(readSettings(environment), environment);
    const app = await buildApp({ ...platform, logger: false, onResponseMismatch: contract.report });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    nodes.push({ app, platform, baseUrl: `http://127.0.0.1:${port}` });
  }
  const [first, second] = nodes as [PlatformNode, PlatformNode];
  return {
    nodes: [first, second],
    storage: target.name,
    async createKey(policy) {
      return (await first.platform.keyAdmin.create({ name: 'limited', policy })).key;
    },
    async close() {
      for (const node of nodes) {
        await node.app.close();
        await node.platform.close();
      }
      await target.drop(databaseUrl);
      rmSync(sharedDir, { recursive: true, force: true });
      contract.assertKept();
    },
  };
}
