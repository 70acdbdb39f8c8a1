import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { imageDimensions, imageTypeOf } from '../../src/tools/media/media-signature.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startFakeComfyUiServer, type FakeComfyUiServer } from '../helpers/fake-comfyui-server.ts';
import { startFakeZaiMediaServer, type FakeZaiMediaServer } from '../helpers/fake-zai-media-server.ts';
import { download, startMediaTestPlatform, waitForTask } from '../helpers/media-test-platform.ts';
import { sampleGif, sampleJpeg, sampleMp4, sampleNoisePng, samplePng } from '../helpers/media-samples.ts';
import { postJson, type TestPlatform } from '../helpers/test-platform.ts';

const url = '/paas/v4/videos/generations';
const zaiKey = 'upstream-id.upstream-secret';

const imageToVideo = {
  '1': { class_type: 'LoadImage', inputs: { image: '{{image}}' } },
  '3': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}' } },
  '4': { class_type: 'WanImageToVideo', inputs: { width: '{{width}}', height: '{{height}}', length: '{{frames}}', start_image: ['1', 0] } },
  '6': { class_type: 'VHS_VideoCombine', inputs: { frame_rate: '{{fps}}', format: 'video/h264-mp4', images: ['4', 0] } },
};
const textToVideo = {
  '3': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}' } },
  '6': { class_type: 'SaveVideo', inputs: { filename_prefix: 'video/ComfyUI' } },
};

let test: TestPlatform;
let comfy: FakeComfyUiServer;
let zai: FakeZaiMediaServer;
let images: Server;
let privateImages: Server;
let imagesOrigin: string;
let privateOrigin: string;
let png: Buffer;
let jpeg: Buffer;
let gif: Buffer;
let bigPng: Buffer;
let mp4: Buffer;
let directory: string;

/** A plain web server for input images given as URLs. */
async function serveImages(host: string): Promise<[Server, string]> {
  const server = createServer((message, response) => {
    const files: Record<string, Buffer> = { '/tiny.png': png, '/big.png': bigPng, '/photo.gif': gif };
    const bytes = files[message.url ?? ''];
    if (bytes === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.length }).end(bytes);
  });
  server.listen(0, host);
  await once(server, 'listening');
  return [server, `http://${host}:${(server.address() as AddressInfo).port}`];
}

before(async () => {
  [comfy, zai, png, jpeg, gif, bigPng, mp4] = await Promise.all([
    startFakeComfyUiServer(),
    startFakeZaiMediaServer({ apiKey: zaiKey }),
    samplePng(32, 32, 'yellow'),
    sampleJpeg(48, 32),
    sampleGif(),
    sampleNoisePng(),
    sampleMp4(64, 48),
  ]);
  assert.ok(bigPng.length > 5 * 1024 * 1024 && bigPng.length < 8 * 1024 * 1024, `a PNG a little over 5 MB (${bigPng.length})`);
  [images, imagesOrigin] = await serveImages('127.0.0.1');
  [privateImages, privateOrigin] = await serveImages('127.0.0.2');
  directory = mkdtempSync(join(tmpdir(), 'videos-engine-'));
  writeFileSync(join(directory, 'i2v.json'), JSON.stringify(imageToVideo));
  writeFileSync(join(directory, 't2v.json'), JSON.stringify(textToVideo));
  test = await startMediaTestPlatform({
    models: {
      'cogvideox-3': { backend: 'comfyui', baseUrl: comfy.baseUrl, workflow: join(directory, 'i2v.json'), pollIntervalMs: 10 },
      'my-t2v': { backend: 'comfyui', baseUrl: comfy.baseUrl, workflow: join(directory, 't2v.json'), pollIntervalMs: 10 },
      'cloud-video': { backend: 'zai', baseUrl: zai.baseUrl, apiKey: zaiKey, upstreamModel: 'cogvideox-3', pollIntervalMs: 10 },
    },
    // Input image URLs on this machine's 127.0.0.1 are allowed, as an intranet would be; 127.0.0.2 is not.
    fetch: { allow: ['127.0.0.1'] },
  });
});
after(async () => {
  await test.close();
  await Promise.all([comfy.close(), zai.close()]);
  images.close();
  privateImages.close();
  rmSync(directory, { recursive: true, force: true });
});
beforeEach(() => {
  comfy.reset();
  zai.reset();
});

const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;

async function submit(body: Record<string, unknown>): Promise<string> {
  const response = await postJson(test, url, body);
  assert.equal(response.statusCode, 200, response.body);
  const submission = response.json() as { id: string; model: string; request_id: string; task_status: string };
  assert.deepEqual(Object.keys(submission).sort(), ['id', 'model', 'request_id', 'task_status']);
  assert.equal(submission.task_status, 'PROCESSING');
  return submission.id;
}

describe('POST /paas/v4/videos/generations through the task engine', () => {
  it('generates from a PNG on ComfyUI and ends SUCCESS with the video and a cover ffmpeg took from its first frame', async () => {
    comfy.plan({ outcome: 'success', pendingPolls: 2, files: [{ node: '6', kind: 'gifs', filename: 'WanVideo_00001.mp4', bytes: mp4 }] });
    const id = await submit({
      model: 'cogvideox-3',
      prompt: 'the sun rises',
      image_url: dataUrl('image/png', png),
      size: '1280x720',
      request_id: 'video-req-1',
    });
    const done = await waitForTask(test, id);
    assert.equal(done.task_status, 'SUCCESS', JSON.stringify(done));
    assert.equal(done.request_id, 'video-req-1');
    assert.equal(done.model, 'cogvideox-3');
    assert.equal(done.video_result?.length, 1);
    const video = await download(test, done.video_result?.[0]?.url ?? '');
    assert.equal(video.status, 200);
    assert.equal(video.contentType, 'video/mp4');
    assert.deepEqual(video.bytes, mp4);
    const cover = await download(test, done.video_result?.[0]?.cover_image_url ?? '');
    assert.equal(cover.contentType, 'image/png');
    assert.equal(imageTypeOf(cover.bytes), 'image/png');
    assert.deepEqual(imageDimensions(cover.bytes), { width: 64, height: 48 }, "the video's frame, not the 32x32 input");
    assert.deepEqual(Buffer.from(comfy.uploads[0]?.bytes ?? []), png, 'ComfyUI got the exact input bytes');
    const filled = comfy.prompts[0]?.workflow;
    assert.equal(filled?.['1']?.inputs['image'], comfy.uploads[0]?.name);
    assert.equal(filled?.['4']?.inputs['length'], 150, '30 fps x 5 s by default');
    assert.equal(filled?.['4']?.inputs['width'], 1280);
  });

  it('judges an image by its bytes: JPEG bytes sent as a PNG data URL are taken as the JPEG they are', async () => {
    comfy.plan({ outcome: 'success', files: [{ node: '6', kind: 'gifs', filename: 'a.mp4', bytes: mp4 }] });
    const id = await submit({ model: 'cogvideox-3', image_url: [{ url: dataUrl('image/png', jpeg) }] });
    assert.equal((await waitForTask(test, id)).task_status, 'SUCCESS');
    assert.equal(comfy.uploads[0]?.contentType, 'image/jpeg');
    assert.match(comfy.uploads[0]?.name ?? '', /\.jpg$/);
  });

  it('refuses a GIF whatever it is labelled, and submits nothing', async () => {
    for (const image_url of [dataUrl('image/png', gif), gif.toString('base64'), `${imagesOrigin}/photo.gif`]) {
      const response = await postJson(test, url, { model: 'cogvideox-3', prompt: 'x', image_url });
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['image_url', 'PNG or JPEG', 'GIF'] });
    }
    assert.equal(comfy.prompts.length + comfy.uploads.length, 0);
  });

  it('refuses a 6 MB PNG on its bytes, inline or fetched', async () => {
    const inline = await postJson(test, url, { model: 'cogvideox-3', image_url: [bigPng.toString('base64')] });
    assertPlatformError(inline, { status: 400, code: '1214', mentions: ['image_url[0]', '5 MB'] });
    const fetched = await postJson(test, url, { model: 'cogvideox-3', image_url: `${imagesOrigin}/big.png` });
    assertPlatformError(fetched, { status: 400, code: '1214', mentions: ['image_url', 'big.png', '5 MB'] });
  });

  it('fetches an image URL through the SSRF guard: an allowed address is fetched, a private one refused', async () => {
    comfy.plan({ outcome: 'success', files: [{ node: '6', kind: 'gifs', filename: 'a.mp4', bytes: mp4 }] });
    const id = await submit({ model: 'cogvideox-3', image_url: `${imagesOrigin}/tiny.png` });
    assert.equal((await waitForTask(test, id)).task_status, 'SUCCESS');
    assert.deepEqual(Buffer.from(comfy.uploads[0]?.bytes ?? []), png);
    const refused = await postJson(test, url, { model: 'cogvideox-3', image_url: `${privateOrigin}/tiny.png` });
    assertPlatformError(refused, { status: 400, code: '1214', mentions: ['image_url', 'private address'] });
    const missing = await postJson(test, url, { model: 'cogvideox-3', image_url: `${imagesOrigin}/gone.png` });
    assertPlatformError(missing, { status: 400, code: '1214', mentions: ['image_url', 'HTTP 404'] });
  });

  it('ends FAIL with the reason when the engine fails (retried as the error allows)', async () => {
    comfy.setDefaultPlan({
      outcome: 'error',
      nodeId: '4',
      nodeType: 'WanImageToVideo',
      exceptionType: 'torch.OutOfMemoryError',
      exceptionMessage: 'CUDA out of memory.',
    });
    const id = await submit({ model: 'cogvideox-3', image_url: dataUrl('image/png', png) });
    const done = await waitForTask(test, id);
    assert.equal(done.task_status, 'FAIL');
    assert.deepEqual(done.video_result, []);
    assert.equal(done.error?.code, '500');
    assert.match(done.error?.message ?? '', /cogvideox-3.*node 4 \(WanImageToVideo\).*CUDA out of memory/);
    assert.equal(comfy.prompts.length, 3, 'a 500 is retried up to the attempt limit');
  });

  it('ends FAIL at once when the request cannot fit the workflow', async () => {
    const id = await submit({ model: 'my-t2v', prompt: 'x', image_url: dataUrl('image/png', png) });
    const done = await waitForTask(test, id);
    assert.equal(done.task_status, 'FAIL');
    assert.equal(done.error?.code, '1214');
    assert.match(done.error?.message ?? '', /image_url.*takes no input image/);
  });

  it("keeps the upstream platform's own cover", async () => {
    zai.plan({ kind: 'video', video: mp4, cover: jpeg, pendingPolls: 1 });
    const id = await submit({ model: 'cloud-video', prompt: 'waves', quality: 'quality', with_audio: true, fps: 60, duration: 10 });
    const done = await waitForTask(test, id);
    assert.equal(done.task_status, 'SUCCESS', JSON.stringify(done));
    assert.deepEqual(zai.requests[0]?.body, { model: 'cogvideox-3', prompt: 'waves', quality: 'quality', with_audio: true, fps: 60, duration: 10 });
    const cover = await download(test, done.video_result?.[0]?.cover_image_url ?? '');
    assert.deepEqual(cover.bytes, jpeg);
    assert.equal(cover.contentType, 'image/jpeg');
  });
});
