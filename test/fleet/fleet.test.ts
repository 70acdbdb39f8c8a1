import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeOpenAiImagesServer, type FakeOpenAiImagesServer } from '../helpers/fake-openai-images-server.ts';
import { samplePng } from '../helpers/media-samples.ts';
import { encodeForm } from '../helpers/multipart-form.ts';
import { databaseTargets, sqliteTarget } from '../helpers/test-databases.ts';
import { isRedisInstalled, waitFor } from '../tasks/task-test-kit.ts';
import { startFleetServices, type FleetProcess, type FleetServices } from './fleet-kit.ts';

const postgres = databaseTargets.find((target) => target.name === 'postgres');
const skip =
  postgres === undefined
    ? 'TEST_DATABASE_URL is not set: the multi-process fleet test needs PostgreSQL (.ci/run sets it)'
    : !isRedisInstalled()
      ? 'redis-server is not installed: the multi-process fleet test needs Redis'
      : false;
if (skip !== false) console.warn(`SKIPPED: ${skip}`);

interface TaskAnswer {
  readonly task_status: string;
  readonly image_result?: { url: string }[];
  readonly error?: unknown;
}

describe('a fleet of real processes: two `serve --no-workers` API nodes and `worker`s on PostgreSQL, Redis and S3', { skip }, () => {
  let services: FleetServices;
  let engine: FakeOpenAiImagesServer;
  let nodeA: FleetProcess;
  let nodeB: FleetProcess;
  let firstWorker: FleetProcess;
  let secondWorker: Promise<FleetProcess> | undefined;
  let png: Buffer;

  before(async () => {
    [engine, png] = await Promise.all([startFakeOpenAiImagesServer(), samplePng(24, 24, 'blue')]);
    services = await startFleetServices({
      target: postgres ?? sqliteTarget,
      config: { models: { 'glm-image': { backend: 'openai-images', baseUrl: engine.baseUrl } } },
      // A killed worker's task is taken over once its lease lapses: 5 s here, not the default 30 s.
      environment: { MODEL_PLATFORM_TASK_LEASE_SECONDS: '5' },
    });
    [nodeA, nodeB, firstWorker] = await Promise.all([
      services.start('api-a', 'serve', ['--no-workers']),
      services.start('api-b', 'serve', ['--no-workers']),
      services.start('worker-1', 'worker'),
    ]);
  });
  after(async () => {
    await secondWorker?.catch(() => undefined);
    await services?.close();
    await engine?.close();
  });

  const call = async (
    node: FleetProcess,
    path: string,
    init: { key?: string; method?: string; json?: unknown; form?: Awaited<ReturnType<typeof encodeForm>> } = {},
  ) => {
    const headers: Record<string, string> = { authorization: `Bearer ${init.key ?? services.bootstrapKey}` };
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    if (init.form !== undefined) headers['content-type'] = init.form.contentType;
    const body = init.json !== undefined ? JSON.stringify(init.json) : init.form?.payload;
    return fetch(`${node.baseUrl}${path}`, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, ...(body === undefined ? {} : { body }) });
  };
  const submitImage = async (node: FleetProcess, requestId: string, key?: string) => {
    const response = await call(node, '/paas/v4/async/images/generations', {
      json: { model: 'glm-image', prompt: 'a lighthouse', request_id: requestId },
      ...(key === undefined ? {} : { key }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { id: string }).id;
  };
  const resultOn = (node: FleetProcess, id: string, key?: string) => async () =>
    (await (await call(node, `/paas/v4/async-result/${id}`, key === undefined ? {} : { key })).json()) as TaskAnswer;
  const download = async (url: string) => {
    const response = await fetch(url);
    assert.equal(response.status, 200, url);
    return Buffer.from(await response.arrayBuffer());
  };

  it('an image task submitted on node A is run by the worker and read, SUCCESS, on node B; its image downloads from the shared store', async () => {
    engine.reply({ kind: 'b64', images: [png] });
    const id = await submitImage(nodeA, 'fleet-image');
    const done = await waitFor(resultOn(nodeB, id), (answer) => answer.task_status !== 'PROCESSING', 30_000);
    assert.equal(done.task_status, 'SUCCESS', JSON.stringify(done));
    const url = done.image_result?.[0]?.url ?? '';
    assert.ok(url.startsWith(`${services.s3Endpoint}/fleet/`), `a presigned URL of the shared bucket: ${url}`);
    assert.deepEqual(await download(url), png);
    assert.equal((await resultOn(nodeA, id)()).task_status, 'SUCCESS', 'node A reads the same row');
    assert.equal(engine.requests.length, 1);
  });

  it('a file uploaded on node A is listed and downloaded on node B', async () => {
    // The second worker starts now, in the background, for the next test.
    secondWorker = services.start('worker-2', 'worker');
    const bytes = Buffer.from(`fleet file ${Date.now()}\n`.repeat(1000));
    const uploaded = await call(nodeA, '/paas/v4/files', {
      form: await encodeForm([
        ['purpose', 'user_data'],
        ['file', bytes, 'notes.txt', 'text/plain'],
      ]),
    });
    assert.equal(uploaded.status, 200, await uploaded.clone().text());
    const { id } = (await uploaded.json()) as { id: string };
    const listed = (await (await call(nodeB, '/paas/v4/files')).json()) as { data: { id: string; filename: string; bytes: number }[] };
    assert.deepEqual(
      listed.data.filter((file) => file.id === id).map((file) => [file.filename, file.bytes]),
      [['notes.txt', bytes.length]],
    );
    const content = await call(nodeB, `/paas/v4/files/${id}/content`);
    assert.equal(content.status, 200);
    assert.deepEqual(Buffer.from(await content.arrayBuffer()), bytes);
  });

  it('a worker killed mid-task: the other worker finishes it; the engine ran it twice, the ledger and the credit count it once', async () => {
    const workers = [firstWorker, await (secondWorker ?? Promise.reject(new Error('the second worker was not started')))];
    // A key with prepaid credit: the task reserves perCall + perImage (150) when submitted.
    const created = await call(nodeA, '/admin/keys', {
      json: { name: 'fleet-credit', policy: { credit: { balance: 1000, prices: { 'glm-image': { perCall: 100, perImage: 50 } } } } },
    });
    assert.equal(created.status, 200, await created.clone().text());
    const { id: keyId, key } = (await created.json()) as { id: string; key: string };

    const second = await samplePng(24, 24, 'green');
    engine.reply({ kind: 'hang' }, { kind: 'b64', images: [second] });
    const engineCallsBefore = engine.requests.length;
    const id = await submitImage(nodeB, 'fleet-kill', key);
    const running = await waitFor(
      () => services.database.db.selectFrom('tasks').select(['state', 'lease_owner', 'attempts']).where('id', '=', id).executeTakeFirstOrThrow(),
      (row) => row.state === 'running' && row.lease_owner !== null && engine.requests.length === engineCallsBefore + 1,
      30_000,
    );
    // Lease owners are `<pid>-<random>`: the pid names the worker that holds the task.
    const holder = workers.find((worker) => running.lease_owner?.startsWith(`${worker.pid}-`));
    assert.ok(holder !== undefined, `a worker of ours holds the task: ${running.lease_owner}`);
    const survivor = workers.find((worker) => worker !== holder);
    holder.child.kill('SIGKILL');
    assert.equal((await holder.exited).signal, 'SIGKILL');

    const done = await waitFor(resultOn(nodeA, id, key), (answer) => answer.task_status !== 'PROCESSING', 30_000);
    assert.equal(done.task_status, 'SUCCESS', JSON.stringify(done));
    assert.deepEqual(await download(done.image_result?.[0]?.url ?? ''), second);
    assert.equal(engine.requests.length, engineCallsBefore + 2, 'the engine saw the first run and exactly one second run');
    const finished = await services.database.db.selectFrom('tasks').select(['attempts', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual([finished.status, Number(finished.attempts)], ['SUCCESS', 2]);
    assert.equal(survivor?.child.exitCode, null, 'the other worker is still running');

    // The surviving worker records the images and settles the reservation to their cost (its recorder flushes each second).
    const ledger = () => services.database.db.selectFrom('usage_records').selectAll().where('request_id', '=', 'fleet-kill').execute();
    await waitFor(ledger, (rows) => rows.length > 0, 10_000);
    const holds = () => services.database.db.selectFrom('credit_holds').selectAll().where('task_id', '=', id).execute();
    await waitFor(holds, (rows) => rows.every((row) => row.state !== 'held'), 10_000);
    // Give a duplicate time to show up, had there been one.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const records = await ledger();
    assert.deepEqual(
      records.map((row) => [row.key_id, row.model, row.endpoint, Number(row.images), Number(row.cost)]),
      [[keyId, 'glm-image', 'async.images.generations', 1, 150]],
      'one ledger row for the task',
    );
    assert.deepEqual(
      (await holds()).map((row) => [row.state, Number(row.amount), Number(row.spent)]),
      [['settled', 150, 150]],
      'one reservation, settled once, to the cost in the ledger',
    );
    const balance = await services.database.db.selectFrom('key_credits').select('balance').where('key_id', '=', keyId).executeTakeFirstOrThrow();
    assert.equal(Number(balance.balance), 850, 'the price was taken once');
  });
});
