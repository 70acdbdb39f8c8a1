import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createComfyUiBackend } from '../../src/backends/comfyui/comfyui.backend.ts';
import type { ComfyUiSettings } from '../../src/backends/comfyui/comfyui-settings.ts';
import type { ImageGenerator, ImageRequest } from '../../src/core/media/image-generator.ts';
import type { VideoGenerator, VideoRequest } from '../../src/core/media/video-generator.ts';
import { unusedResources } from '../helpers/backend-resources.ts';
import { startFakeComfyUiServer, type FakeComfyUiServer } from '../helpers/fake-comfyui-server.ts';
import { sampleJpeg, sampleMp4, samplePng } from '../helpers/media-samples.ts';
import { assertApiError, assertEngineFailure, rejection } from '../helpers/api-error-assertions.ts';

/** An SDXL text-to-image graph in API format, with the placeholders the backend fills. */
const imageWorkflow = {
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: '{{width}}', height: '{{height}}', batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a photo of {{prompt}}, high detail', clip: ['4', 1] } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry', clip: ['4', 1] } },
  '3': {
    class_type: 'KSampler',
    inputs: {
      seed: '{{seed}}',
      steps: '{{steps}}',
      cfg: 7,
      sampler_name: 'euler',
      scheduler: 'normal',
      denoise: 1,
      model: ['4', 0],
      positive: ['6', 0],
      negative: ['7', 0],
      latent_image: ['5', 0],
    },
  },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'ComfyUI', images: ['8', 0] } },
};

/** A first-and-last-frame image-to-video graph (VideoHelperSuite output). */
const videoWorkflow = {
  '1': { class_type: 'LoadImage', inputs: { image: '{{image}}' } },
  '2': { class_type: 'LoadImage', inputs: { image: '{{last_image}}' } },
  '3': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}', clip: ['10', 0] } },
  '4': {
    class_type: 'WanFirstLastFrameToVideo',
    inputs: { width: '{{width}}', height: '{{height}}', length: '{{frames}}', batch_size: 1, start_image: ['1', 0], end_image: ['2', 0] },
  },
  '5': { class_type: 'KSampler', inputs: { seed: '{{seed}}', steps: '{{steps}}', latent_image: ['4', 2] } },
  '6': { class_type: 'VHS_VideoCombine', inputs: { frame_rate: '{{fps}}', format: 'video/h264-mp4', save_output: true, images: ['5', 0] } },
  '10': { class_type: 'CLIPLoader', inputs: { clip_name: 'umt5_xxl.safetensors', note: '{{duration}} s, audio {{with_audio}}' } },
};

const textToVideoWorkflow = {
  '3': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}' } },
  '4': { class_type: 'EmptyHunyuanLatentVideo', inputs: { width: '{{width}}', height: '{{height}}', length: '{{frames}}' } },
  '6': { class_type: 'SaveVideo', inputs: { filename_prefix: 'video/ComfyUI', format: 'mp4' } },
};

let comfy: FakeComfyUiServer;
let configDir: string;
let png: Buffer;
let jpeg: Buffer;
let mp4: Buffer;

before(async () => {
  comfy = await startFakeComfyUiServer();
  configDir = mkdtempSync(join(tmpdir(), 'comfyui-test-'));
  writeFileSync(join(configDir, 'image.json'), JSON.stringify(imageWorkflow));
  writeFileSync(join(configDir, 'video.json'), JSON.stringify(videoWorkflow));
  writeFileSync(join(configDir, 't2v.json'), JSON.stringify(textToVideoWorkflow));
  [png, jpeg, mp4] = await Promise.all([samplePng(64, 48), sampleJpeg(1600, 900), sampleMp4()]);
});
after(async () => {
  await comfy.close();
  rmSync(configDir, { recursive: true, force: true });
});
beforeEach(() => comfy.reset());

/** The backend for an entry: the test's defaults, `entry` over them. */
function backend(entry: Partial<ComfyUiSettings> = {}) {
  const full: ComfyUiSettings = { backend: 'comfyui', baseUrl: comfy.baseUrl, workflow: 'image.json', pollIntervalMs: 10, ...entry };
  return createComfyUiBackend({ modelName: 'cogview-4-250304', entry: full, configDir, resources: unusedResources });
}

function imageEngine(entry: Partial<ComfyUiSettings> = {}): ImageGenerator {
  const image = backend(entry).image;
  assert.ok(image !== undefined);
  return image;
}

function videoEngine(entry: Partial<ComfyUiSettings> = {}): VideoGenerator {
  const video = backend({ workflow: 'video.json', ...entry }).video;
  assert.ok(video !== undefined);
  return video;
}

function imageRequest(overrides: Partial<ImageRequest> = {}): ImageRequest {
  return {
    model: 'cogview-4-250304',
    prompt: 'a red "fox"',
    width: 1024,
    height: 768,
    quality: 'hd',
    asyncTask: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

function videoRequest(overrides: Partial<VideoRequest> = {}): VideoRequest {
  return {
    model: 'cogvideox-3',
    prompt: 'waves',
    images: [
      { bytes: png, contentType: 'image/png' },
      { bytes: jpeg, contentType: 'image/jpeg' },
    ],
    quality: 'speed',
    withAudio: false,
    size: '1280x720',
    fps: 30,
    durationSeconds: 5,
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe('comfyui: images', () => {
  it('fills the placeholders with typed values, waits out the queue and returns the saved image', async () => {
    comfy.plan({
      outcome: 'success',
      pendingPolls: 3,
      files: [
        { node: '9', kind: 'images', filename: 'ComfyUI_00001_.png', bytes: png },
        { node: '12', kind: 'images', filename: 'ComfyUI_temp_0001.png', type: 'temp', bytes: Buffer.from('preview') },
      ],
    });
    const result = await imageEngine().generate(imageRequest());
    assert.equal(result.images.length, 1);
    assert.deepEqual(Buffer.from(result.images[0]?.bytes ?? []), png);
    assert.equal(result.images[0]?.contentType, 'image/png');
    assert.equal(result.contentFilter, undefined);
    const prompt = comfy.prompts[0];
    assert.ok(prompt !== undefined);
    assert.equal(prompt.polls, 4, 'history is polled until the entry appears');
    assert.match(String(prompt.clientId), /^model-platform-/);
    const filled = prompt.workflow;
    assert.equal(filled['6']?.inputs['text'], 'a photo of a red "fox", high detail');
    assert.equal(filled['5']?.inputs['width'], 1024);
    assert.equal(filled['5']?.inputs['height'], 768);
    assert.equal(filled['3']?.inputs['steps'], 50);
    assert.equal(typeof filled['3']?.inputs['seed'], 'number');
    assert.deepEqual(filled['3']?.inputs['model'], ['4', 0], 'links stay as they are');
  });

  it('uses a fresh seed per request and fewer steps for standard quality', async () => {
    comfy.setDefaultPlan({ outcome: 'success', files: [{ node: '9', kind: 'images', filename: 'a.png', bytes: png }] });
    await imageEngine().generate(imageRequest({ quality: 'standard' }));
    await imageEngine().generate(imageRequest({ quality: 'standard' }));
    const [first, second] = comfy.prompts;
    assert.equal(first?.workflow['3']?.inputs['steps'], 25);
    assert.notEqual(first?.workflow['3']?.inputs['seed'], second?.workflow['3']?.inputs['seed']);
  });

  it('reports an execution error with the node, its type and the exception', async () => {
    comfy.plan({
      outcome: 'error',
      pendingPolls: 1,
      nodeId: '3',
      nodeType: 'KSampler',
      exceptionType: 'torch.OutOfMemoryError',
      exceptionMessage: 'Allocation on device 0 would exceed allowed memory.',
    });
    const error = await rejection(imageEngine().generate(imageRequest()));
    assertEngineFailure(error, 'engine-error', 'cogview-4-250304', 'node 3 (KSampler)', 'torch.OutOfMemoryError', 'Allocation on device 0');
  });

  it('reports a workflow ComfyUI refuses as a configuration problem, with the node errors', async () => {
    comfy.plan({
      outcome: 'refuse',
      nodeId: '4',
      classType: 'CheckpointLoaderSimple',
      message: 'Value not in list',
      details: "ckpt_name: 'sd_xl_base_1.0.safetensors' not in []",
    });
    const error = await rejection(imageEngine().generate(imageRequest()));
    assertEngineFailure(error, 'misconfigured', 'image.json', 'Prompt outputs failed validation', 'node 4 (CheckpointLoaderSimple)', 'ckpt_name');
  });

  it('times out on a prompt that never finishes, and takes it off the queue', async () => {
    comfy.plan({ outcome: 'never' });
    const started = Date.now();
    const error = await rejection(imageEngine({ timeoutMs: 300 }).generate(imageRequest()));
    assertEngineFailure(error, 'timeout', 'did not finish', '0.3 s', 'timeoutMs');
    assert.ok(Date.now() - started < 2_000);
    const id = comfy.prompts[0]?.id;
    await waitFor(() => comfy.cancellations.length === 2);
    assert.deepEqual(
      [...comfy.cancellations].sort((a, b) => a.path.localeCompare(b.path)),
      [
        { path: '/interrupt', body: { prompt_id: id } },
        { path: '/queue', body: { delete: [id] } },
      ],
    );
  });

  it('stops and cancels when the caller aborts', async () => {
    comfy.plan({ outcome: 'never' });
    const controller = new AbortController();
    const generation = imageEngine().generate(imageRequest({ signal: controller.signal }));
    await waitFor(() => (comfy.prompts[0]?.polls ?? 0) >= 2);
    controller.abort(new Error('the client closed the connection'));
    const error = await rejection(generation);
    assert.equal((error as Error).message, 'the client closed the connection');
    await waitFor(() => comfy.cancellations.length === 2);
  });

  it('says so when the workflow saved no image', async () => {
    comfy.plan({ outcome: 'success', files: [] });
    assertEngineFailure(await rejection(imageEngine().generate(imageRequest())), 'misconfigured', 'saved no image', 'SaveImage');
  });

  it('refuses bytes that are not an image', async () => {
    comfy.plan({ outcome: 'success', files: [{ node: '9', kind: 'images', filename: 'x.png', bytes: Buffer.from('<html>oops</html>') }] });
    assertEngineFailure(await rejection(imageEngine().generate(imageRequest())), 'bad-answer', 'not an image');
  });

  it('answers 1234 when ComfyUI cannot be reached', async () => {
    const error = await rejection(imageEngine({ baseUrl: 'http://127.0.0.1:9' }).generate(imageRequest()));
    assertEngineFailure(error, 'unreachable', 'cogview-4-250304', 'ECONNREFUSED');
  });
});

describe('comfyui: configuration', () => {
  const write = (name: string, content: unknown) => writeFileSync(join(configDir, name), typeof content === 'string' ? content : JSON.stringify(content));
  const cases: { name: string; entry: Partial<ComfyUiSettings>; file?: [string, unknown]; mentions: string[] }[] = [
    { name: 'a missing file', entry: { workflow: 'missing.json' }, mentions: ['missing.json', 'ENOENT'] },
    { name: 'not JSON', entry: { workflow: 'bad.json' }, file: ['bad.json', '{"3": '], mentions: ['bad.json', 'not JSON'] },
    { name: 'the UI format', entry: { workflow: 'ui.json' }, file: ['ui.json', { nodes: [], links: [], version: 0.4 }], mentions: ['Save (API Format)'] },
    {
      name: 'an unknown placeholder',
      entry: { workflow: 'typo.json' },
      file: ['typo.json', { '1': { class_type: 'X', inputs: { text: '{{prompt}} {{promt}}' } } }],
      mentions: ['{{promt}}'],
    },
    {
      name: 'no prompt placeholder',
      entry: { workflow: 'fixed.json' },
      file: ['fixed.json', { '1': { class_type: 'X', inputs: { text: 'a cat' } } }],
      mentions: ['{{prompt}}'],
    },
  ];
  for (const testCase of cases) {
    it(`refuses ${testCase.name} with 1221`, () => {
      if (testCase.file !== undefined) write(...testCase.file);
      assert.throws(
        () => backend(testCase.entry),
        (error: unknown) => {
          assertEngineFailure(error, 'misconfigured', ...testCase.mentions);
          return true;
        },
      );
    });
  }
});

describe('comfyui: videos', () => {
  it('uploads the first and last frame, fills the video placeholders and returns the VideoHelperSuite mp4', async () => {
    comfy.plan({ outcome: 'success', pendingPolls: 2, files: [{ node: '6', kind: 'gifs', filename: 'AnimateDiff_00001.mp4', bytes: mp4 }] });
    const video = await videoEngine().generate(videoRequest({ fps: 60, durationSeconds: 10, withAudio: true }));
    assert.deepEqual(Buffer.from(video.bytes), mp4);
    assert.equal(video.contentType, 'video/mp4');
    assert.equal(video.cover, undefined, 'no still image was saved, so the platform makes the cover');
    assert.equal(comfy.uploads.length, 2);
    const [first, last] = comfy.uploads;
    assert.deepEqual(Buffer.from(first?.bytes ?? []), png);
    assert.equal(first?.contentType, 'image/png');
    assert.equal(first?.type, 'input');
    assert.deepEqual(Buffer.from(last?.bytes ?? []), jpeg);
    assert.match(last?.name ?? '', /-last\.jpg$/);
    const filled = comfy.prompts[0]?.workflow;
    assert.equal(filled?.['1']?.inputs['image'], first?.name);
    assert.equal(filled?.['2']?.inputs['image'], last?.name);
    assert.equal(filled?.['4']?.inputs['width'], 1280);
    assert.equal(filled?.['4']?.inputs['length'], 600);
    assert.equal(filled?.['6']?.inputs['frame_rate'], 60);
    assert.equal(filled?.['10']?.inputs['note'], '10 s, audio true');
  });

  it('takes a SaveVideo output listed under images, and a saved still as the cover', async () => {
    comfy.plan({
      outcome: 'success',
      files: [
        { node: '6', kind: 'images', filename: 'ComfyUI_00001_.mp4', subfolder: 'video', bytes: mp4 },
        { node: '7', kind: 'images', filename: 'cover_00001_.png', bytes: png },
      ],
    });
    const video = await videoEngine({ workflow: 't2v.json' }).generate(videoRequest({ images: [] }));
    assert.deepEqual(Buffer.from(video.bytes), mp4);
    assert.deepEqual(Buffer.from(video.cover?.bytes ?? []), png);
    assert.equal(video.cover?.contentType, 'image/png');
    assert.equal(comfy.uploads.length, 0);
  });

  it('takes an output listed under videos', async () => {
    comfy.plan({ outcome: 'success', files: [{ node: '6', kind: 'videos', filename: 'out.mp4', bytes: mp4 }] });
    const video = await videoEngine({ workflow: 't2v.json' }).generate(videoRequest({ images: [] }));
    assert.equal(video.contentType, 'video/mp4');
  });

  it('sizes a video without size from its first image: short side 1080', async () => {
    comfy.plan({ outcome: 'success', files: [{ node: '6', kind: 'gifs', filename: 'a.mp4', bytes: mp4 }] });
    await videoEngine().generate(
      videoRequest({
        size: undefined,
        images: [
          { bytes: jpeg, contentType: 'image/jpeg' },
          { bytes: png, contentType: 'image/png' },
        ],
      }),
    );
    const filled = comfy.prompts[0]?.workflow;
    assert.equal(filled?.['4']?.inputs['width'], 1920);
    assert.equal(filled?.['4']?.inputs['height'], 1080);
  });

  it('fails clearly when the images do not fit the workflow', async () => {
    assertApiError(await rejection(videoEngine({ workflow: 't2v.json' }).generate(videoRequest())), '1214', 'image_url', 'takes no input image');
    assertApiError(await rejection(videoEngine().generate(videoRequest({ images: [] }))), '1214', 'image_url', 'first-frame');
    assertApiError(
      await rejection(videoEngine().generate(videoRequest({ images: [{ bytes: png, contentType: 'image/png' }] }))),
      '1214',
      'image_url',
      'two images',
    );
    assert.equal(comfy.prompts.length, 0, 'nothing was queued');
  });

  it('says so when the workflow saved no video', async () => {
    comfy.plan({ outcome: 'success', files: [{ node: '9', kind: 'images', filename: 'still.png', bytes: png }] });
    assertEngineFailure(await rejection(videoEngine({ workflow: 't2v.json' }).generate(videoRequest({ images: [] }))), 'misconfigured', 'saved no video');
  });
});

async function waitFor(condition: () => boolean, withinMs = 2_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail('the condition did not come true in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
