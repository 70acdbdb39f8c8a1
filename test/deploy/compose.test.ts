import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { modelEntrySchema } from '../../src/backends/index.ts';
import { loadConfigFile } from '../../src/core/config/load-config.ts';
import { readSettings, type Settings } from '../../src/core/config/settings.ts';
import { loadMasterKey } from '../../src/store/master-key.ts';
import { interpolateCompose, parseEnvFile } from './compose-interpolation.ts';

const root = resolve(import.meta.dirname, '../..');
const deploy = join(root, 'deploy');

interface Service {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: unknown;
  profiles?: string[];
  entrypoint?: string[];
}

/** The compose file as Docker Compose reads it: YAML merge keys applied, then `${...}` filled from the env file. */
function loadCompose(environment: Record<string, string>): Record<string, Service> {
  const document = parse(readFileSync(join(deploy, 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
  return (interpolateCompose(document, environment) as { services: Record<string, Service> }).services;
}

/** .env.example with the secrets an operator fills in. */
const filledEnvironment = {
  ...parseEnvFile(readFileSync(join(deploy, '.env.example'), 'utf8')),
  MODEL_PLATFORM_MASTER_KEY: 'ab'.repeat(32),
  POSTGRES_PASSWORD: 'pg-secret',
  S3_SECRET_ACCESS_KEY: 'store-secret',
};

const packageVersion = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
/** The platform's nodes: the services that run `serve` or `worker` from this repository's image. */
const isPlatform = (service: Service) => service.build !== undefined && service.entrypoint === undefined;
const stringEnvironment = (service: Service) => Object.fromEntries(Object.entries(service.environment ?? {}).map(([key, value]) => [key, String(value)]));

describe('deploy/compose.yaml: a fleet the platform can actually run on', () => {
  const services = loadCompose(filledEnvironment);
  const platformServices = Object.entries(services).filter(([, service]) => isPlatform(service));
  const settingsOf = (service: Service): Settings => readSettings(stringEnvironment(service));

  it('refuses to start without the shared master key and the passwords', () => {
    const example = parseEnvFile(readFileSync(join(deploy, '.env.example'), 'utf8'));
    assert.throws(() => loadCompose(example), /MODEL_PLATFORM_MASTER_KEY|POSTGRES_PASSWORD|S3_SECRET_ACCESS_KEY/);
    assert.throws(() => loadCompose({ ...filledEnvironment, S3_SECRET_ACCESS_KEY: '' }), /S3_SECRET_ACCESS_KEY/);
    assert.throws(() => loadCompose({ ...filledEnvironment, MODEL_PLATFORM_MASTER_KEY: '' }), /MODEL_PLATFORM_MASTER_KEY/);
  });

  it('has two API nodes without workers and a worker, all built from this repository', () => {
    const commands = platformServices.map(([name, service]) => [name, [service.command ?? []].flat().join(' ')]);
    const apiNodes = commands.filter(([, command]) => command === 'serve --no-workers');
    const workers = commands.filter(([, command]) => /^worker --port \d+$/.test(command ?? ''));
    assert.equal(apiNodes.length, 2, JSON.stringify(commands));
    assert.equal(workers.length, 1, JSON.stringify(commands));
    assert.equal(apiNodes.length + workers.length, platformServices.length);
    for (const [, service] of platformServices) assert.ok(existsSync(join(deploy, String((service.build as { context: string }).context), 'Dockerfile')));
  });

  it('gives every node settings the platform accepts, pointing at the compose services with their credentials', () => {
    const postgres = stringEnvironment(services['postgres'] as Service);
    const store = services['object-store'] as Service;
    const storeEnvironment = stringEnvironment(store);
    assert.ok(services['redis'] !== undefined);
    for (const [name, service] of platformServices) {
      const settings = settingsOf(service);
      const database = new URL(settings.databaseUrl ?? 'missing:');
      assert.equal(database.hostname, 'postgres', `${name}: DATABASE_URL names the postgres service`);
      assert.equal(database.username, postgres['POSTGRES_USER']);
      assert.equal(decodeURIComponent(database.password), postgres['POSTGRES_PASSWORD']);
      assert.equal(database.pathname, `/${postgres['POSTGRES_DB'] ?? ''}`);
      assert.equal(new URL(settings.redisUrl ?? 'missing:').hostname, 'redis', `${name}: REDIS_URL names the redis service`);
      assert.ok(settings.s3 !== undefined, `${name}: S3 configured`);
      const endpoint = new URL(settings.s3.endpoint ?? 'missing:');
      assert.equal(endpoint.hostname, 'object-store');
      const listen = /--port :(\d+)/.exec([store.command ?? []].flat().join(' '));
      assert.equal(endpoint.port, listen?.[1], 'the nodes reach the port the gateway listens on');
      assert.ok(
        (store.ports ?? []).some((port) => port.endsWith(`:${endpoint.port}`)),
        'and clients reach it too (presigned URLs)',
      );
      assert.equal(settings.s3.accessKeyId, storeEnvironment['ROOT_ACCESS_KEY_ID']);
      assert.equal(settings.s3.secretAccessKey, storeEnvironment['ROOT_SECRET_ACCESS_KEY']);
      assert.ok(settings.publicUrl !== undefined, `${name}: MODEL_PLATFORM_PUBLIC_URL set, so media URLs name the load balancer`);
      const depends = service.depends_on ?? {};
      assert.equal(depends['postgres']?.condition, 'service_healthy', name);
      assert.equal(depends['redis']?.condition, 'service_healthy', name);
      assert.equal(depends['object-store-init']?.condition, 'service_completed_successfully', name);
    }
  });

  it('pins every image to a version, the platform to the version of package.json', () => {
    for (const [name, service] of Object.entries(services)) {
      const tag = /:([^:/]+)$/.exec(service.image ?? '')?.[1];
      assert.ok(tag !== undefined && tag !== 'latest' && /\d/.test(tag), `${name}: ${service.image ?? 'no image'}`);
    }
    for (const [name, service] of platformServices) assert.equal(service.image, `model-platform:${packageVersion}`, name);
    assert.doesNotMatch(readFileSync(join(deploy, 'compose.yaml'), 'utf8'), /minio/i, 'MinIO images are no longer published');
  });

  it('creates the bucket the nodes use, with their own S3 settings, before they start', () => {
    const init = services['object-store-init'] as Service;
    assert.equal(init.image, `model-platform:${packageVersion}`, 'the platform image (its S3 client) runs the script');
    const script = (init.entrypoint ?? []).at(-1) ?? '';
    const mount = (init.volumes ?? []).find((volume) => volume.split(':')[1] === script);
    assert.ok(mount !== undefined && existsSync(join(deploy, mount.split(':')[0] as string)), `${script} is mounted from deploy/`);
    const initEnvironment = stringEnvironment(init);
    for (const [name, service] of platformServices) {
      const s3 = settingsOf(service).s3;
      assert.ok(s3 !== undefined);
      const initS3 = readSettings(initEnvironment).s3;
      assert.deepEqual(
        [initS3?.bucket, initS3?.endpoint, initS3?.accessKeyId, initS3?.secretAccessKey],
        [s3.bucket, s3.endpoint, s3.accessKeyId, s3.secretAccessKey],
        name,
      );
    }
    assert.equal(init.depends_on?.['object-store']?.condition, 'service_healthy');
  });

  it('shares one master key, and the config file every node mounts is valid', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'model-platform-deploy-'));
    try {
      const keys = platformServices.map(([, service]) => loadMasterKey(dataDir, stringEnvironment(service)).toString('hex'));
      assert.equal(new Set(keys).size, 1, 'one master key on every node');
      assert.equal(existsSync(join(dataDir, 'master.key')), false, 'read from the environment, never generated per node');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    for (const [name, service] of platformServices) {
      const configPath = settingsOf(service).configPath ?? '';
      const mount = (service.volumes ?? []).find((volume) => volume.split(':')[1] === configPath);
      assert.ok(mount !== undefined, `${name} mounts ${configPath}`);
      assert.doesNotThrow(() => loadConfigFile(join(deploy, mount.split(':')[0] as string), {}, modelEntrySchema));
    }
  });

  it('balances over exactly the API nodes, with SSE buffering off and room for the largest bodies', () => {
    const nginx = readFileSync(join(deploy, 'nginx.conf'), 'utf8');
    const upstreams = [...nginx.matchAll(/^\s*server\s+([\w.-]+):(\d+)/gm)].map((match) => `${match[1]}:${match[2]}`).sort();
    const apiTargets = platformServices
      .filter(([, service]) => [service.command].flat().join(' ') === 'serve --no-workers')
      .map(([name, service]) => `${name}:${settingsOf(service).port}`)
      .sort();
    assert.deepEqual(upstreams, apiTargets);
    assert.match(nginx, /proxy_buffering off;/);
    const bodyLimit = /client_max_body_size (\d+)m;/.exec(nginx);
    assert.ok(bodyLimit !== null && Number(bodyLimit[1]) >= 101, 'a 100 MB upload plus its multipart framing fits');
    const balancer = services['load-balancer'] as Service;
    const mounted = (balancer.volumes ?? []).map((volume) => volume.split(':')[0] as string);
    assert.ok(mounted.includes('./nginx.conf'));
  });

  it('scrapes every node, the worker on the port its command opens', () => {
    const prometheus = parse(readFileSync(join(deploy, 'prometheus.yml'), 'utf8')) as {
      scrape_configs: { static_configs?: { targets: string[] }[]; dns_sd_configs?: { names: string[]; port: number }[] }[];
    };
    const targets = prometheus.scrape_configs.flatMap((job) => [
      ...(job.static_configs ?? []).flatMap((config) => config.targets),
      ...(job.dns_sd_configs ?? []).flatMap((config) => config.names.map((name) => `${name}:${config.port}`)),
    ]);
    for (const [name, service] of platformServices) {
      const command = [service.command].flat().join(' ');
      const port = command.startsWith('worker') ? Number(/--port (\d+)/.exec(command)?.[1]) : settingsOf(service).port;
      assert.ok(targets.includes(`${name}:${port}`), `${name}:${port} in ${targets.join(', ')}`);
      // The image's HEALTHCHECK asks $PORT: the worker's must be the port it serves.
      assert.equal(settingsOf(service).port, port, `${name}: PORT matches what it listens on`);
    }
  });
});

describe('docs', () => {
  it('the README links the load-balancer page, which covers what a fleet needs', () => {
    assert.match(readFileSync(join(root, 'README.md'), 'utf8'), /\]\(docs\/load-balancer\.md\)/);
    const page = readFileSync(join(root, 'docs/load-balancer.md'), 'utf8');
    for (const topic of [
      'MODEL_PLATFORM_MASTER_KEY',
      'proxy_buffering off',
      '/readyz',
      '/healthz',
      '/metrics',
      'MODEL_PLATFORM_PUBLIC_URL',
      'sticky',
      '--no-workers',
    ]) {
      assert.ok(page.toLowerCase().includes(topic.toLowerCase()), `docs/load-balancer.md mentions ${topic}`);
    }
  });
});
