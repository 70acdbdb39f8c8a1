import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ModelEntry } from '../../src/core/config/config.schema.ts';
import {
  jsonReply,
  startFakeOpenAiServer,
  vllmCompletion,
  vllmError,
  type FakeOpenAiServer,
  type FakeReply,
  type RecordedRequest,
} from '../helpers/fake-openai-server.ts';
import { startFakeZaiMediaServer, type FakeZaiMediaServer } from '../helpers/fake-zai-media-server.ts';
import { startMediaTestPlatform, waitForTask } from '../helpers/media-test-platform.ts';
import { sampleJpeg, sampleMp4, samplePng } from '../helpers/media-samples.ts';
import { postJson, type TestPlatform } from '../helpers/test-platform.ts';
import { waitFor } from '../tasks/task-test-kit.ts';

const zaiKey = 'upstream-id.upstream-secret';
const tasksEachSide = 8;

/** An engine at work: each call to `path` is answered `answer` after a while; the probe's model list at once. */
function workingEngine(path: string, answer: () => unknown) {
  return (request: RecordedRequest): FakeReply =>
    request.path.endsWith(path) ? { kind: 'json', body: answer(), delayMs: 150 } : jsonReply({ object: 'list', data: [] });
}

/** An engine that takes calls and never answers them (it is dying): every call on it is still in flight when it stops. */
function stuckEngine(path: string) {
  return (request: RecordedRequest): FakeReply => (request.path.endsWith(path) ? { kind: 'hang' } : jsonReply({ object: 'list', data: [] }));
}

/** One kind of task on a model whose first deployment is `stuck` and second answers. */
interface TaskCase {
  readonly name: string;
  readonly model: string;
  readonly url: string;
  readonly body: Record<string, unknown>;
  /** The engine path that generates (not probes, polls or downloads). */
  readonly path: string;
  readonly stuck: FakeOpenAiServer;
  /** The generating calls the live deployment received. */
  readonly liveCalls: () => number;
  readonly deployment: (baseUrl: string) => ModelEntry;
}

/**
 * Async tasks run their engine calls through the model's router: for each kind (images, chat,
 * video), a model with two deployments on loopback, one of which stops while tasks are running on
 * it and more are being submitted. The tasks whose call was on it when it stopped (it had answered
 * nothing) move to the other; every task ends SUCCESS, each answered once by the survivor.
 */
describe('async tasks on a model with two deployments, one of which stops', () => {
  let painter: FakeOpenAiServer;
  let chat: FakeOpenAiServer;
  let video: FakeZaiMediaServer;
  const cases: TaskCase[] = [];
  let test: TestPlatform;

  before(async () => {
    const [png, mp4, jpeg] = await Promise.all([samplePng(8, 8), sampleMp4(32, 24), sampleJpeg(32, 24)]);
    [painter, chat, video] = await Promise.all([startFakeOpenAiServer(), startFakeOpenAiServer(), startFakeZaiMediaServer({ apiKey: zaiKey })]);
    painter.setDefault(workingEngine('/images/generations', () => ({ created: Math.floor(Date.now() / 1000), data: [{ b64_json: png.toString('base64') }] })));
    chat.setDefault(workingEngine('/chat/completions', () => vllmCompletion({ content: 'Hi!', usage: { promptTokens: 5, completionTokens: 2 } })));
    video.plan(...Array.from({ length: 2 * tasksEachSide }, () => ({ kind: 'video' as const, video: mp4, cover: jpeg, pendingPolls: 2 })));
    const generating = (engine: FakeOpenAiServer, path: string) => () => engine.requests.filter((request) => request.path.endsWith(path)).length;
    const stuck = async (path: string) => {
      const engine = await startFakeOpenAiServer();
      engine.setDefault(stuckEngine(path));
      return engine;
    };
    cases.push(
      {
        name: 'image tasks (POST /async/images/generations)',
        model: 'glm-image',
        url: '/paas/v4/async/images/generations',
        body: { prompt: 'a red fox' },
        path: '/images/generations',
        stuck: await stuck('/images/generations'),
        liveCalls: generating(painter, '/images/generations'),
        deployment: (baseUrl) => ({ backend: 'openai-images', baseUrl, upstreamModel: 'dall-e-3', maxConcurrency: 4 }),
      },
      {
        name: 'chat tasks (POST /async/chat/completions)',
        model: 'glm-4.7',
        url: '/paas/v4/async/chat/completions',
        body: { messages: [{ role: 'user', content: 'Hello' }] },
        path: '/chat/completions',
        stuck: await stuck('/chat/completions'),
        liveCalls: generating(chat, '/chat/completions'),
        deployment: (baseUrl) => ({ backend: 'openai-compatible', baseUrl, upstreamModel: 'fake/glm', maxConcurrency: 4 }),
      },
      {
        name: "video tasks (POST /videos/generations, on the upstream platform's protocol)",
        model: 'cloud-video',
        url: '/paas/v4/videos/generations',
        body: { prompt: 'waves' },
        path: '/videos/generations',
        stuck: await stuck('/videos/generations'),
        liveCalls: () => video.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/videos/generations')).length,
        deployment: (baseUrl) => ({ backend: 'zai', baseUrl, apiKey: zaiKey, upstreamModel: 'cogvideox-3', pollIntervalMs: 10, maxConcurrency: 4 }),
      },
    );
    const liveUrls = [painter.baseUrl, chat.baseUrl, video.baseUrl];
    const stuckUrl = (engine: FakeOpenAiServer, index: number) => (index === 2 ? `${engine.origin}/api/paas/v4` : engine.baseUrl);
    test = await startMediaTestPlatform({
      models: Object.fromEntries(
        cases.map((each, index) => [each.model, { deployments: [each.deployment(stuckUrl(each.stuck, index)), each.deployment(liveUrls[index] ?? '')] }]),
      ),
    });
  });
  after(async () => {
    await test.close();
    await Promise.all([painter.close(), chat.close(), video.close(), ...cases.map((each) => each.stuck.close())]);
  });

  const submit = async (each: TaskCase) => {
    const response = await postJson(test, each.url, { model: each.model, ...each.body });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { id: string }).id;
  };

  for (const [index, name] of ['image', 'chat', 'video'].entries()) {
    it(`${name} tasks: every one succeeds on the survivor, those running on the stopped engine included`, async () => {
      const each = cases[index] as TaskCase;
      const stuckCalls = () => each.stuck.requests.filter((request) => request.path.endsWith(each.path)).length;
      const ids: string[] = [];
      for (let count = 0; count < tasksEachSide; count += 1) ids.push(await submit(each));
      await waitFor(
        () => Promise.resolve(stuckCalls()),
        (calls) => calls > 0,
      );
      await each.stuck.stop();
      const cut = stuckCalls();
      for (let count = 0; count < tasksEachSide; count += 1) ids.push(await submit(each));

      const ended = await Promise.all(ids.map((id) => waitForTask(test, id, 30_000)));
      assert.deepEqual(
        ended.filter((answer) => answer.task_status !== 'SUCCESS'),
        [],
        `${each.name}: every task succeeds`,
      );
      assert.ok(cut >= 1, 'tasks were running on the engine when it stopped');
      assert.equal(stuckCalls(), cut, 'the stopped engine gets nothing more');
      assert.equal(each.liveCalls(), 2 * tasksEachSide, 'the survivor answered each task once, those moved off the stopped engine included');
    });
  }
});

/**
 * A task whose attempt found every deployment refusing is retried by the task engine, and the retry
 * routes again: both deployments are cooling down by then, so the router's last resort (the one
 * whose cool-down ends first) is tried as a trial, and its answer ends that cool-down.
 */
describe('an async chat task whose every deployment refused its first attempt', () => {
  let engines: FakeOpenAiServer[];
  let test: TestPlatform;
  before(async () => {
    engines = await Promise.all([startFakeOpenAiServer(), startFakeOpenAiServer()]);
    for (const engine of engines) {
      engine.setDefault(workingEngine('/chat/completions', () => vllmCompletion({ content: 'Hi!', usage: { promptTokens: 5, completionTokens: 2 } })));
      engine.enqueue(vllmError(503, 'warming up', 'ServiceUnavailable'));
    }
    const deployments = engines.map((engine, priority) => ({
      name: `engine-${priority}`,
      backend: 'openai-compatible' as const,
      baseUrl: engine.baseUrl,
      upstreamModel: 'fake/glm',
      priority,
    }));
    test = await startMediaTestPlatform({ models: { 'glm-4.7': { routing: 'priority', deployments } } });
  });
  after(async () => {
    await test.close();
    await Promise.all(engines.map((engine) => engine.close()));
  });

  it('is retried, and its retry goes to the deployment whose cool-down ends first, which is healthy again', async () => {
    const response = await postJson(test, '/paas/v4/async/chat/completions', { model: 'glm-4.7', messages: [{ role: 'user', content: 'Hello' }] });
    assert.equal(response.statusCode, 200, response.body);
    const answer = await waitForTask(test, (response.json() as { id: string }).id, 30_000);
    assert.equal(answer.task_status, 'SUCCESS', JSON.stringify(answer));
    const chats = engines.map((engine) => engine.requests.filter((request) => request.path.endsWith('/chat/completions')).length);
    assert.deepEqual(chats, [2, 1], 'the first attempt asked both; the retry the first alone');
    const states = test.platform.backends.deploymentStates().map((state) => [state.deployment, state.state]);
    assert.deepEqual(states, [
      ['engine-0', 'healthy'],
      ['engine-1', 'cooling-down'],
    ]);
  });
});
