import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { modelEntrySchema } from '../../src/backends/index.ts';
import { parseCommandLine } from '../../src/cli/parse-command-line.ts';
import { loadConfigFile } from '../../src/core/config/load-config.ts';
import { readSettings } from '../../src/core/config/settings.ts';
import { startOpsServer } from '../../src/http/ops-server.ts';
import { defaultServerLimits } from '../../src/http/server-limits.ts';
import { loadMasterKey } from '../../src/store/master-key.ts';
import { startTestPlatform } from '../helpers/test-platform.ts';
import { containersOf, loadKustomization, podTemplateOf, probePort, splitImage, type ContainerSpec, type ManifestObject } from './kubernetes-manifests.ts';

const root = resolve(import.meta.dirname, '../..');
const folder = join(root, 'deploy/kubernetes');
const { kustomization, objects } = loadKustomization(folder);
const packageVersion = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

const find = (kind: string, name: string): ManifestObject => {
  const object = objects.find((candidate) => candidate.kind === kind && candidate.metadata.name === name);
  assert.ok(object !== undefined, `${kind} ${name} in the kustomization`);
  return object;
};
const apiDeployment = find('Deployment', 'model-platform-api');
const workerDeployment = find('Deployment', 'model-platform-worker');
const secret = find('Secret', 'model-platform');
const onlyContainer = (deployment: ManifestObject): ContainerSpec => {
  const containers = containersOf(deployment);
  assert.equal(containers.length, 1, deployment.metadata.name);
  return containers[0] as ContainerSpec;
};
const api = onlyContainer(apiDeployment);
/** A Deployment's pod template (the test fails when it has none). */
const templateOf = (deployment: ManifestObject) => {
  const template = podTemplateOf(deployment);
  assert.ok(template !== undefined, deployment.metadata.name);
  return template;
};
/** The object as the API server gets it, without the file this reader noted. */
const manifestData = (object: ManifestObject) => Object.fromEntries(Object.entries(object).filter(([key]) => key !== 'file'));
const worker = onlyContainer(workerDeployment);

/** What a container's environment holds: its envFrom sources in order, then its own env. */
function environmentOf(container: ContainerSpec, secretValues: Record<string, string>): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef !== undefined) Object.assign(environment, (find('ConfigMap', source.configMapRef.name)['data'] as Record<string, string>) ?? {});
    if (source.secretRef !== undefined) {
      assert.equal(source.secretRef.name, secret.metadata.name);
      Object.assign(environment, secretValues);
    }
  }
  for (const variable of container.env ?? []) environment[variable.name] = variable.value ?? '';
  return environment;
}
const placeholderSecret = secret['stringData'] as Record<string, string>;
const filledSecret = {
  ...placeholderSecret,
  MODEL_PLATFORM_MASTER_KEY: 'cd'.repeat(32),
  DATABASE_URL: 'postgres://platform:pg-secret@postgres.db:5432/platform',
  REDIS_URL: 'redis://redis.db:6379',
  S3_ACCESS_KEY_ID: 'access',
  S3_SECRET_ACCESS_KEY: 'secret',
};

describe('deploy/kubernetes: a Kustomize base the cluster accepts', () => {
  it('lists every manifest of the folder, each parsing and valid against the Kubernetes schema', async () => {
    const files = readdirSync(folder).filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml');
    assert.deepEqual([...kustomization.resources].sort(), files.sort(), 'no manifest left out of the kustomization, none missing');
    for (const object of objects) {
      const models = (await import(`kubernetes-models/${object.apiVersion}`)) as Record<string, new (data: unknown) => { validate(): void }>;
      const Model = models[object.kind];
      assert.ok(Model !== undefined, `${object.file}: ${object.apiVersion} ${object.kind} is a Kubernetes kind`);
      assert.doesNotThrow(() => new Model(manifestData(object)).validate(), `${object.file}: ${object.kind} ${object.metadata.name}`);
    }
    const kinds = objects.map((object) => object.kind).sort();
    for (const kind of ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Secret', 'Service'])
      assert.ok(kinds.includes(kind), kind);
  });

  it('the schema check itself refuses a broken object', async () => {
    const { Deployment } = await import('kubernetes-models/apps/v1');
    const broken = structuredClone(manifestData(apiDeployment)) as { spec: { template: { spec: { containers: { ports: unknown[] }[] } } } };
    for (const container of broken.spec.template.spec.containers) container.ports = [{ containerPort: 'eighty' }];
    assert.throws(() => new Deployment(broken as never).validate(), /containerPort/);
  });

  it('runs images pinned to a version: the platform at the version of package.json', () => {
    for (const object of objects) {
      for (const container of containersOf(object)) {
        const [, tag] = splitImage(container.image);
        assert.ok(tag !== undefined && tag !== 'latest' && /\d/.test(tag), `${object.file}: ${container.image}`);
      }
    }
    assert.equal(splitImage(api.image)[1], packageVersion);
    assert.equal(splitImage(worker.image)[1], packageVersion);
    assert.equal(kustomization.images?.find((image) => image.name === 'model-platform')?.newTag, packageVersion);
  });

  it('API nodes: serve --no-workers, with the Service, autoscaler and disruption budget on the same pods', () => {
    const command = parseCommandLine(api.args ?? []);
    assert.ok(command.kind === 'run', JSON.stringify(command));
    assert.deepEqual(command.command.words, ['serve']);
    assert.equal(command.flags['no-workers'], true);
    const port = Number(environmentOf(api, filledSecret)['PORT']);
    assert.deepEqual(
      api.ports?.map((entry) => entry.containerPort),
      [port],
      'the container port is the one PORT makes it listen on',
    );

    const template = templateOf(apiDeployment);
    const selects = (selector: Record<string, string>) => Object.entries(selector).every(([key, value]) => template.metadata.labels[key] === value);
    const deploymentSelector = (apiDeployment['spec'] as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
    assert.ok(selects(deploymentSelector));
    const service = find('Service', 'model-platform-api')['spec'] as { selector: Record<string, string>; ports: { targetPort: string | number }[] };
    assert.ok(selects(service.selector), 'the Service reaches the API pods');
    assert.ok(!Object.entries(service.selector).every(([key, value]) => templateOf(workerDeployment).metadata.labels[key] === value), 'and not the workers');
    for (const servicePort of service.ports) assert.equal(probePort(api, { httpGet: { path: '/', port: servicePort.targetPort } }), port);

    const autoscaler = find('HorizontalPodAutoscaler', 'model-platform-api')['spec'] as { scaleTargetRef: { kind: string; name: string }; minReplicas: number };
    assert.deepEqual([autoscaler.scaleTargetRef.kind, autoscaler.scaleTargetRef.name], ['Deployment', apiDeployment.metadata.name]);
    assert.ok(autoscaler.minReplicas >= 2, 'two API nodes at least, so a disruption leaves one');
    assert.ok(api.resources?.requests?.cpu !== undefined, 'CPU utilisation needs a CPU request');
    const budget = find('PodDisruptionBudget', 'model-platform-api')['spec'] as { selector: { matchLabels: Record<string, string> } };
    assert.ok(selects(budget.selector.matchLabels));
  });

  it('workers: `worker --port N`, probed and scraped on N', () => {
    const command = parseCommandLine(worker.args ?? []);
    assert.ok(command.kind === 'run', JSON.stringify(command));
    assert.deepEqual(command.command.words, ['worker']);
    const port = Number(command.flags.port);
    for (const probe of [worker.livenessProbe, worker.readinessProbe, worker.startupProbe]) assert.equal(probePort(worker, probe), port);
    const annotations = (templateOf(workerDeployment).metadata as { annotations?: Record<string, string> }).annotations ?? {};
    assert.equal(annotations['prometheus.io/port'], String(port));
    const budget = find('PodDisruptionBudget', 'model-platform-worker')['spec'] as { selector: { matchLabels: Record<string, string> } };
    assert.ok(Object.entries(budget.selector.matchLabels).every(([key, value]) => templateOf(workerDeployment).metadata.labels[key] === value));
  });

  it('probes liveness on /healthz and readiness on /readyz, routes the API and the worker ports answer', async () => {
    for (const container of [api, worker]) {
      assert.equal(container.livenessProbe?.httpGet?.path, '/healthz', container.name);
      assert.equal(container.readinessProbe?.httpGet?.path, '/readyz', container.name);
      assert.equal(container.startupProbe?.httpGet?.path, '/healthz', container.name);
    }
    const test = await startTestPlatform();
    const ops = await startOpsServer(test.platform, { port: 0, host: '127.0.0.1' }, defaultServerLimits);
    try {
      for (const probe of [api.livenessProbe, api.readinessProbe]) {
        assert.equal((await test.app.inject({ method: 'GET', url: probe?.httpGet?.path ?? '?' })).statusCode, 200, `API ${probe?.httpGet?.path}`);
      }
      const origin = `http://127.0.0.1:${(ops.server.address() as AddressInfo).port}`;
      for (const probe of [worker.livenessProbe, worker.readinessProbe]) {
        assert.equal((await fetch(`${origin}${probe?.httpGet?.path ?? '?'}`)).status, 200, `worker ${probe?.httpGet?.path}`);
      }
    } finally {
      await ops.close();
      await test.close();
    }
  });

  it('uses only environment variables the platform reads', () => {
    const sources: string[] = [];
    const read = (directory: string) => {
      for (const entry of readdirSync(directory, { withFileTypes: true })) {
        if (entry.isDirectory()) read(join(directory, entry.name));
        else if (entry.name.endsWith('.ts')) sources.push(readFileSync(join(directory, entry.name), 'utf8'));
      }
    };
    read(join(root, 'src'));
    const named = new Set(sources.flatMap((source) => [...source.matchAll(/'([A-Z][A-Z0-9_]+)'/g)].map((match) => match[1] as string)));
    const names = new Set([...Object.keys(environmentOf(api, filledSecret)), ...Object.keys(environmentOf(worker, filledSecret))]);
    for (const name of names) assert.ok(named.has(name), `${name} is read somewhere in src/`);
    for (const name of ['MODEL_PLATFORM_MASTER_KEY', 'DATABASE_URL', 'REDIS_URL', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']) {
      assert.ok(name in placeholderSecret, `${name} is in the Secret`);
    }
  });

  it('gives both kinds of pod settings the platform accepts, on PostgreSQL, Redis and S3, with one master key', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'model-platform-kubernetes-'));
    try {
      for (const container of [api, worker]) {
        const environment = environmentOf(container, filledSecret);
        const settings = readSettings(environment);
        assert.match(settings.databaseUrl ?? '', /^postgres:\/\//, container.name);
        assert.match(settings.redisUrl ?? '', /^redis:\/\//, container.name);
        assert.ok(settings.s3 !== undefined && settings.s3.bucket !== '' && settings.s3.accessKeyId === 'access', container.name);
        assert.equal(loadMasterKey(dataDir, environment).toString('hex'), 'cd'.repeat(32));
        // The placeholder stops the pod rather than letting it run with a key every reader of this file knows.
        assert.throws(() => loadMasterKey(dataDir, environmentOf(container, placeholderSecret)), /MODEL_PLATFORM_MASTER_KEY/);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('mounts the ConfigMap where MODEL_PLATFORM_CONFIG points, and its config.yaml is valid', () => {
    const configMap = find('ConfigMap', 'model-platform-config');
    const directory = mkdtempSync(join(tmpdir(), 'model-platform-kubernetes-'));
    try {
      const path = join(directory, 'config.yaml');
      writeFileSync(path, (configMap['data'] as Record<string, string>)['config.yaml'] ?? '');
      assert.doesNotThrow(() => loadConfigFile(path, {}, modelEntrySchema));
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
    for (const deployment of [apiDeployment, workerDeployment]) {
      const template = templateOf(deployment);
      const container = template.spec.containers[0] as ContainerSpec;
      const configPath = environmentOf(container, filledSecret)['MODEL_PLATFORM_CONFIG'] ?? '';
      const volume = template.spec.volumes?.find((candidate) => candidate.configMap?.name === configMap.metadata.name);
      const mount = container.volumeMounts?.find((candidate) => candidate.name === volume?.name);
      assert.ok(mount !== undefined && join(mount.mountPath, 'config.yaml') === configPath, `${deployment.metadata.name} mounts ${configPath}`);
    }
  });
});
