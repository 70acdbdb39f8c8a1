import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { formatApiKey } from '../../../src/core/auth/api-key.ts';
import { assertPlatformError } from '../../helpers/error-assertions.ts';
import { startFakeComfyUiServer, type FakeComfyUiServer } from '../../helpers/fake-comfyui-server.ts';
import { download, startMediaTestPlatform } from '../../helpers/media-test-platform.ts';
import { sampleMp4, samplePng } from '../../helpers/media-samples.ts';
import { postJson, type TestPlatform } from '../../helpers/test-platform.ts';

const workflow = {
  '1': { class_type: 'LoadImage', inputs: { image: '{{image}}' } },
  '3': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}' } },
  '4': { class_type: 'WanImageToVideo', inputs: { width: '{{width}}', height: '{{height}}', length: '{{frames}}', start_image: ['1', 0] } },
  '6': { class_type: 'VHS_VideoCombine', inputs: { frame_rate: '{{fps}}', format: 'video/h264-mp4', images: ['4', 0] } },
};

interface AsyncAnswer {
  status: 'pending' | 'success' | 'failed';
  agent_id: string;
  async_id: string;
  choices?: { index: number; finish_reason: string; message: { role: string; content: { type: string; video_url: string }[] }[] }[];
  error?: { code: string; message: string };
}

let test: TestPlatform;
let comfy: FakeComfyUiServer;
let directory: string;
let png: Buffer;
let mp4: Buffer;

before(async () => {
  [comfy, png, mp4] = await Promise.all([startFakeComfyUiServer(), samplePng(32, 32, 'yellow'), sampleMp4(64, 48)]);
  directory = mkdtempSync(join(tmpdir(), 'effect-video-api-'));
  writeFileSync(join(directory, 'i2v.json'), JSON.stringify(workflow));
  test = await startMediaTestPlatform({
    models: { 'cogvideox-3': { backend: 'comfyui', baseUrl: comfy.baseUrl, workflow: join(directory, 'i2v.json'), pollIntervalMs: 10 } },
    agents: { vidu_template_agent: { model: 'cogvideox-3' } },
  });
});
after(async () => {
  await test.close();
  await comfy.close();
  rmSync(directory, { recursive: true, force: true });
});
beforeEach(() => comfy.reset());

async function startEffect(template: string): Promise<string> {
  const response = await postJson(test, '/v1/agents', {
    agent_id: 'vidu_template_agent',
    messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } }] }],
    custom_variables: { template },
  });
  assert.equal(response.statusCode, 200, response.body);
  const answer = response.json() as { agent_id: string; async_id?: string; status?: string; usage?: { total_calls: number } };
  assert.equal(answer.agent_id, 'vidu_template_agent');
  assert.equal(answer.status, 'pending');
  assert.equal(answer.usage?.total_calls, 1);
  assert.match(answer.async_id ?? '', /\S/);
  return answer.async_id ?? '';
}

/** Polls POST /v1/agents/async-result (by `async_id`, or `task_id` as the Java SDK sends it) until it is no longer pending. */
async function settle(id: string, name: 'async_id' | 'task_id'): Promise<AsyncAnswer> {
  const until = Date.now() + 15_000;
  for (;;) {
    const response = await postJson(test, '/v1/agents/async-result', { agent_id: 'vidu_template_agent', [name]: id });
    assert.equal(response.statusCode, 200, response.body);
    const answer = response.json() as AsyncAnswer;
    assert.equal(answer.async_id, id);
    if (answer.status !== 'pending') return answer;
    if (Date.now() > until) assert.fail(`${id} still pending`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The answer with each signed link's expiry and signature left out. */
function unsigned(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replace(/expires=\d+&signature=[\w-]+/g, 'expires=&signature='));
}

describe('POST /v1/agents with vidu_template_agent, then /v1/agents/async-result', () => {
  it('answers pending, then success with a downloadable video, by async_id and by task_id', async () => {
    comfy.plan({ outcome: 'success', pendingPolls: 4, files: [{ node: '6', kind: 'gifs', filename: 'Kiss.mp4', bytes: mp4 }] });
    const id = await startEffect('french_kiss');
    const first = await postJson(test, '/v1/agents/async-result', { agent_id: 'vidu_template_agent', async_id: id });
    assert.deepEqual(first.json(), { status: 'pending', agent_id: 'vidu_template_agent', async_id: id });
    const done = await settle(id, 'async_id');
    assert.equal(done.status, 'success', JSON.stringify(done));
    const part = done.choices?.[0]?.message[0]?.content[0];
    assert.equal(part?.type, 'video_url');
    const video = await download(test, part?.video_url ?? '');
    assert.equal(video.status, 200);
    assert.deepEqual(video.bytes, mp4);
    // The same result; its download links are signed anew at each read (the expiry moves with the clock).
    assert.deepEqual(unsigned((await settle(id, 'task_id')).choices), unsigned(done.choices), 'task_id reads the same result');
  });

  it('answers failed with the engine error, and 404 to another key', async () => {
    comfy.setDefaultPlan({ outcome: 'error', nodeId: '4', nodeType: 'WanImageToVideo', exceptionType: 'RuntimeError', exceptionMessage: 'sampler exploded' });
    const id = await startEffect('bodyshake');
    const failed = await settle(id, 'async_id');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.agent_id, 'vidu_template_agent');
    assert.match(failed.error?.message ?? '', /sampler exploded/);
    const other = formatApiKey(await test.platform.keys.create({ name: 'other' }));
    const response = await postJson(test, '/v1/agents/async-result', { agent_id: 'vidu_template_agent', async_id: id }, { authorization: `Bearer ${other}` });
    assertPlatformError(response, { status: 404, code: '404', mentions: [id] });
  });
});
