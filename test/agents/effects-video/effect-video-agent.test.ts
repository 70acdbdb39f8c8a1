import { AgentConversationRepository } from '../../../src/store/agent-conversation-repository.ts';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { AgentEvent, AgentInput, AgentMessage, AgentServices, AsyncAgentResult } from '../../../src/agents/agent.ts';
import { createEffectVideoAgent, type EffectVideoAgent } from '../../../src/agents/effects-video/effect-video-agent.ts';
import { effectTemplates } from '../../../src/agents/effects-video/effect-templates.ts';
import { effectTemplates as schemaTemplates } from '../../../src/api/agents/agent-variables.schema.ts';
import type { FileStore } from '../../../src/core/files/file-store.ts';
import { imageTypeOf } from '../../../src/tools/media/media-signature.ts';
import { assertApiError, rejection } from '../../helpers/api-error-assertions.ts';
import { startFakeComfyUiServer, type FakeComfyUiServer } from '../../helpers/fake-comfyui-server.ts';
import { download, startMediaTestPlatform } from '../../helpers/media-test-platform.ts';
import { sampleGif, sampleMp4, samplePng } from '../../helpers/media-samples.ts';
import { postJson, type TestPlatform } from '../../helpers/test-platform.ts';

const imageToVideo = {
  '1': { class_type: 'LoadImage', inputs: { image: '{{image}}' } },
  '3': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}' } },
  '4': { class_type: 'WanImageToVideo', inputs: { width: '{{width}}', height: '{{height}}', length: '{{frames}}', start_image: ['1', 0] } },
  '6': { class_type: 'VHS_VideoCombine', inputs: { frame_rate: '{{fps}}', format: 'video/h264-mp4', images: ['4', 0] } },
};
const origin = 'http://platform.test';

let test: TestPlatform;
let comfy: FakeComfyUiServer;
let photos: Server;
let photosOrigin: string;
let directory: string;
let png: Buffer;
let gif: Buffer;
let mp4: Buffer;
let agent: EffectVideoAgent;
let services: AgentServices;
let owner: string;

/** The agent uses no uploaded files; any use is a bug this says. */
const noFiles = new Proxy({} as FileStore, {
  get(_target, name) {
    throw new Error(`the effects-video agent was not expected to use files.${String(name)}`);
  },
});

before(async () => {
  [comfy, png, gif, mp4] = await Promise.all([startFakeComfyUiServer(), samplePng(40, 30, 'yellow'), sampleGif(), sampleMp4(64, 48)]);
  photos = createServer((message, response) => {
    if (message.url !== '/couple.png') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
  });
  photos.listen(0, '127.0.0.1');
  await once(photos, 'listening');
  photosOrigin = `http://127.0.0.1:${(photos.address() as AddressInfo).port}`;
  directory = mkdtempSync(join(tmpdir(), 'effect-video-'));
  writeFileSync(join(directory, 'i2v.json'), JSON.stringify(imageToVideo));
  test = await startMediaTestPlatform({
    models: { 'cogvideox-3': { backend: 'comfyui', baseUrl: comfy.baseUrl, workflow: join(directory, 'i2v.json'), pollIntervalMs: 10 } },
    agents: { vidu_template_agent: { model: 'cogvideox-3' } },
    // Photo URLs on 127.0.0.1 stand for an intranet the operator allowed; other private addresses stay refused.
    fetch: { allow: ['127.0.0.1'] },
  });
  const { platform } = test;
  services = {
    config: platform.config,
    backends: platform.backends,
    tasks: platform.tasks,
    blobs: platform.blobs,
    files: noFiles,
    conversations: new AgentConversationRepository(platform.database),
  };
  agent = createEffectVideoAgent(services);
  owner = test.key.split('.')[0] ?? '';
});
after(async () => {
  await test.close();
  await comfy.close();
  photos.close();
  rmSync(directory, { recursive: true, force: true });
});
beforeEach(() => comfy.reset());

const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;

function input(messages: AgentMessage[], variables: Record<string, unknown> = { template: 'french_kiss' }): AgentInput {
  return { messages, variables, ownerKeyId: owner, requestId: 'effect-req-1', signal: new AbortController().signal };
}

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** Runs the agent and returns the async id of its one `done` event, checking the pending answer. */
async function submit(agentInput: AgentInput): Promise<string> {
  const events = await collect(agent.run(agentInput));
  const done = events.at(-1);
  assert.equal(events.filter((event) => event.kind === 'done').length, 1, JSON.stringify(events));
  assert.ok(done?.kind === 'done');
  assert.equal(done.status, 'pending');
  assert.equal(done.finishReason, 'stop');
  assert.deepEqual(done.usage, { promptTokens: 0, completionTokens: 0, calls: 1 });
  assert.match(done.asyncId ?? '', /\S/);
  return done.asyncId ?? '';
}

/** Polls asyncResult as the async-result endpoint does until it is no longer pending. */
async function settle(asyncId: string, withinMs = 15_000): Promise<AsyncAgentResult> {
  const until = Date.now() + withinMs;
  for (;;) {
    const result = await agent.asyncResult(owner, asyncId, origin);
    assert.ok(result !== undefined, 'the owner sees its run');
    if (result.status !== 'pending') return result;
    if (Date.now() > until) assert.fail(`run ${asyncId} still pending after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('vidu_template_agent through the task engine and a fake ComfyUI', () => {
  it('goes pending → success with the video and its cover, made from the template prompt, the user text and the photo', async () => {
    comfy.plan({ outcome: 'success', pendingPolls: 4, files: [{ node: '6', kind: 'gifs', filename: 'Kiss_00001.mp4', bytes: mp4 }] });
    const asyncId = await submit(
      input([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'by the sea at sunset' },
            { type: 'image_url', url: dataUrl('image/png', png) },
          ],
        },
      ]),
    );
    assert.deepEqual(await agent.asyncResult(owner, asyncId, origin), { status: 'pending' }, 'pending right after the run');
    const result = await settle(asyncId);
    assert.equal(result.status, 'success', JSON.stringify(result));
    assert.ok(result.status === 'success');
    assert.ok(result.videoUrl.startsWith(`${origin}/`), result.videoUrl);
    const video = await download(test, result.videoUrl);
    assert.equal(video.status, 200);
    assert.equal(video.contentType, 'video/mp4');
    assert.deepEqual(video.bytes, mp4);
    const cover = await download(test, result.coverUrl ?? '');
    assert.equal(imageTypeOf(cover.bytes), 'image/png', 'the first frame as cover');

    assert.deepEqual(Buffer.from(comfy.uploads[0]?.bytes ?? []), png, 'ComfyUI animated the exact photo');
    const workflow = comfy.prompts[0]?.workflow;
    assert.equal(workflow?.['3']?.inputs['text'], `${effectTemplates.french_kiss.prompt} by the sea at sunset`);
    assert.equal(workflow?.['4']?.inputs['length'], 150, 'the template: 5 s at 30 fps');
    assert.deepEqual([workflow?.['4']?.inputs['width'], workflow?.['4']?.inputs['height']], [1440, 1080], "the photo's 4:3 ratio");
  });

  it('takes the photo from a message whose content is an image URL, fetched through the SSRF guard', async () => {
    comfy.plan({ outcome: 'success', files: [{ node: '6', kind: 'gifs', filename: 'Shake.mp4', bytes: mp4 }] });
    const asyncId = await submit(input([{ role: 'user', content: `${photosOrigin}/couple.png` }], { template: 'bodyshake' }));
    assert.equal((await settle(asyncId)).status, 'success');
    assert.deepEqual(Buffer.from(comfy.uploads[0]?.bytes ?? []), png);
    assert.equal(comfy.prompts[0]?.workflow['3']?.inputs['text'], effectTemplates.bodyshake.prompt, 'no user text: the template prompt alone');
  });

  it('goes pending → failed with the engine failure as the error', async () => {
    comfy.setDefaultPlan({
      outcome: 'error',
      pendingPolls: 1,
      nodeId: '4',
      nodeType: 'WanImageToVideo',
      exceptionType: 'torch.OutOfMemoryError',
      exceptionMessage: 'CUDA out of memory.',
    });
    const asyncId = await submit(input([{ role: 'user', content: [{ type: 'image_url', url: dataUrl('image/png', png) }] }], { template: 'sexy_me' }));
    const result = await settle(asyncId);
    assert.equal(result.status, 'failed', JSON.stringify(result));
    assert.ok(result.status === 'failed');
    assert.equal(result.error.code, '500');
    assert.match(result.error.message, /WanImageToVideo.*CUDA out of memory/);
  });

  it("answers undefined for another key's run, an unknown id and a plain video task", async () => {
    comfy.setDefaultPlan({ outcome: 'never' });
    const asyncId = await submit(input([{ role: 'user', content: [{ type: 'image_url', url: dataUrl('image/png', png) }] }]));
    assert.equal(await agent.asyncResult('another-key', asyncId, origin), undefined);
    assert.equal(await agent.asyncResult(owner, 'no-such-task', origin), undefined);
    const plain = await postJson(test, '/paas/v4/videos/generations', { model: 'cogvideox-3', image_url: dataUrl('image/png', png) });
    assert.equal(plain.statusCode, 200, plain.body);
    assert.equal(await agent.asyncResult(owner, (plain.json() as { id: string }).id, origin), undefined, 'not an agent run');
  });

  it('refuses, before anything reaches the engine, what it cannot animate', async () => {
    const image = (url: string): AgentMessage[] => [{ role: 'user', content: [{ type: 'image_url', url }] }];
    assertApiError(await rejection(collect(agent.run(input([{ role: 'user', content: 'make it dance' }])))), '1214', 'messages', 'image');
    assertApiError(await rejection(collect(agent.run(input([{ role: 'assistant', content: dataUrl('image/png', png) }])))), '1214', 'messages');
    assertApiError(await rejection(collect(agent.run(input(image(dataUrl('image/gif', gif)))))), '1214', 'messages[0].content[0].image_url', 'PNG or JPEG');
    assertApiError(await rejection(collect(agent.run(input([{ role: 'user', content: 'http://127.0.0.2:9/secret.png' }])))), '1214', 'messages[0].content');
    assertApiError(await rejection(collect(agent.run(input(image(dataUrl('image/png', png)), { template: 'moonwalk' })))), '1214', 'custom_variables.template');
    assertApiError(await rejection(collect(agent.run(input(image(dataUrl('image/png', png)), {})))), '1213', 'custom_variables.template');
    const long = [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'x'.repeat(400) },
          { type: 'image_url' as const, url: dataUrl('image/png', png) },
        ],
      },
    ];
    assertApiError(await rejection(collect(agent.run(input(long)))), '1214', 'messages', '400 characters');
    const unconfigured = createEffectVideoAgent({ ...services, config: { ...services.config, agents: {} } });
    assertApiError(await rejection(collect(unconfigured.run(input(image(dataUrl('image/png', png)))))), '1221', 'vidu_template_agent', 'agents:');
    assert.equal(comfy.prompts.length + comfy.uploads.length, 0, 'nothing reached the engine');
  });

  it('has a template for every effect the request schema accepts', () => {
    assert.deepEqual(Object.keys(effectTemplates).sort(), [...schemaTemplates].sort());
    for (const template of Object.values(effectTemplates)) assert.ok(template.prompt.length <= 400, 'room for the user text in 512 characters');
  });
});
