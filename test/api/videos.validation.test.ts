import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { sharedIdCases } from '../helpers/shared-id-cases.ts';

const url = '/paas/v4/videos/generations';
const valid = { model: 'cogvideox-3', prompt: 'A kitten playing with a ball of yarn' };
const httpImage = 'https://example.com/first.png';
const pngBase64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==';
const fiveMiB = 5 * 1024 * 1024;
/** Base64 text that decodes to `bytes` bytes. */
const base64Of = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');

/** Each case breaks one rule; the answer must name the field (1213 missing, 1214 invalid). */
const rejected: { name: string; body: Record<string, unknown>; code: string; mentions: string[] }[] = [
  { name: 'model missing', body: { prompt: 'x' }, code: '1213', mentions: ['model'] },
  { name: 'neither prompt nor image_url', body: { model: 'cogvideox-3' }, code: '1213', mentions: ['prompt', 'image_url'] },
  { name: 'both null', body: { model: 'cogvideox-3', prompt: null, image_url: null }, code: '1213', mentions: ['prompt', 'image_url'] },
  { name: 'blank prompt and no image', body: { model: 'cogvideox-3', prompt: '  ' }, code: '1213', mentions: ['prompt', 'image_url'] },
  { name: 'prompt of 513 characters', body: { ...valid, prompt: 'p'.repeat(513) }, code: '1214', mentions: ['prompt'] },
  { name: 'prompt not a string', body: { ...valid, prompt: 7 }, code: '1214', mentions: ['prompt'] },
  { name: 'quality unknown', body: { ...valid, quality: 'best' }, code: '1214', mentions: ['quality'] },
  { name: 'with_audio not boolean', body: { ...valid, with_audio: 'yes' }, code: '1214', mentions: ['with_audio'] },
  { name: 'size not in the list', body: { ...valid, size: '1280x1280' }, code: '1214', mentions: ['size'] },
  { name: 'fps 25', body: { ...valid, fps: 25 }, code: '1214', mentions: ['fps'] },
  { name: 'fps as a string', body: { ...valid, fps: '30' }, code: '1214', mentions: ['fps'] },
  { name: 'fps 30.5', body: { ...valid, fps: 30.5 }, code: '1214', mentions: ['fps'] },
  { name: 'duration 6', body: { ...valid, duration: 6 }, code: '1214', mentions: ['duration'] },
  { name: 'duration as a string', body: { ...valid, duration: '5' }, code: '1214', mentions: ['duration'] },
  { name: 'image_url of wrong type', body: { ...valid, image_url: 5 }, code: '1214', mentions: ['image_url'] },
  { name: 'image_url empty string', body: { ...valid, image_url: '' }, code: '1214', mentions: ['image_url'] },
  { name: 'image_url empty array', body: { ...valid, image_url: [] }, code: '1214', mentions: ['image_url'] },
  { name: 'three images', body: { ...valid, image_url: [httpImage, httpImage, httpImage] }, code: '1214', mentions: ['image_url'] },
  { name: 'object without url', body: { ...valid, image_url: {} }, code: '1213', mentions: ['image_url.url'] },
  { name: 'ftp URL', body: { ...valid, image_url: 'ftp://example.com/a.png' }, code: '1214', mentions: ['image_url'] },
  { name: 'not a URL nor base64', body: { ...valid, image_url: 'my picture.png' }, code: '1214', mentions: ['image_url'] },
  { name: 'http URL without a host', body: { ...valid, image_url: 'http://' }, code: '1214', mentions: ['image_url'] },
  { name: 'gif data URL', body: { ...valid, image_url: `data:image/gif;base64,${pngBase64}` }, code: '1214', mentions: ['image_url', 'image/gif'] },
  {
    name: 'webp data URL in an array',
    body: { ...valid, image_url: [httpImage, `data:image/webp;base64,${pngBase64}`] },
    code: '1214',
    mentions: ['image_url[1]'],
  },
  { name: 'data URL without base64', body: { ...valid, image_url: 'data:image/png,rawbytes' }, code: '1214', mentions: ['image_url'] },
  { name: 'data URL with bad base64', body: { ...valid, image_url: 'data:image/png;base64,not base64!' }, code: '1214', mentions: ['image_url'] },
  {
    name: 'bad image in an object',
    body: { ...valid, image_url: [{ url: httpImage }, { url: 'file:///etc/passwd' }] },
    code: '1214',
    mentions: ['image_url[1].url'],
  },
  { name: 'bare base64 over 5 MB', body: { ...valid, image_url: base64Of(fiveMiB + 1) }, code: '1214', mentions: ['image_url', '5 MB'] },
  { name: 'data URL over 5 MB', body: { ...valid, image_url: [`data:image/jpeg;base64,${base64Of(fiveMiB + 3)}`] }, code: '1214', mentions: ['image_url[0]'] },
  { name: 'two images with quality', body: { ...valid, image_url: [httpImage, httpImage], quality: 'quality' }, code: '1214', mentions: ['quality', 'speed'] },
  ...sharedIdCases(valid).map(({ field, ...rest }) => ({ ...rest, mentions: [field] })),
];

/** Bodies that pass validation in every accepted image form. */
const accepted: { name: string; body: Record<string, unknown> }[] = [
  { name: 'prompt only', body: valid },
  { name: 'image only, http URL', body: { model: 'cogvideox-3', image_url: httpImage } },
  { name: 'image as {url}', body: { model: 'cogvideox-3', image_url: { url: httpImage } } },
  { name: 'png data URL', body: { ...valid, image_url: `data:image/png;base64,${pngBase64}` } },
  { name: 'jpg data URL', body: { ...valid, image_url: `data:image/jpg;base64,${pngBase64}` } },
  { name: 'bare base64 (Python SDK strips the prefix)', body: { ...valid, image_url: pngBase64 } },
  { name: 'one image in an array', body: { ...valid, image_url: [httpImage] } },
  { name: 'first and last frame, mixed forms, speed', body: { ...valid, image_url: [httpImage, { url: pngBase64 }], quality: 'speed' } },
  { name: 'two images, quality omitted', body: { ...valid, image_url: [`data:image/jpeg;base64,${pngBase64}`, httpImage] } },
  { name: 'base64 of exactly 5 MB', body: { model: 'cogvideox-3', image_url: base64Of(fiveMiB) } },
  { name: 'one image with quality', body: { ...valid, image_url: httpImage, quality: 'quality' } },
  { name: 'blank prompt with an image', body: { model: 'cogvideox-3', prompt: '', image_url: httpImage } },
];

describe('POST /paas/v4/videos/generations contract', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform({
      config: { models: { 'my-video': { backend: 'comfyui', baseUrl: 'http://127.0.0.1:9', workflow: 'missing-workflow.json' } } },
    });
  });
  after(() => test.close());

  for (const testCase of rejected) {
    it(`rejects: ${testCase.name}`, async () => {
      const response = await postJson(test, url, testCase.body);
      assertPlatformError(response, { status: 400, code: testCase.code, mentions: testCase.mentions });
    });
  }

  for (const testCase of accepted) {
    it(`accepts: ${testCase.name}`, async () => {
      const response = await postJson(test, url, testCase.body);
      assertPlatformError(response, { status: 400, code: '1221', mentions: ['cogvideox-3'] });
    });
  }

  it('accepts a full request (Python SDK fields ignored) and says no engine is configured', async () => {
    const response = await postJson(test, url, {
      ...valid,
      quality: 'speed',
      with_audio: true,
      image_url: [httpImage, `data:image/png;base64,${pngBase64}`],
      size: '3840x2160',
      fps: 60,
      duration: 10,
      request_id: 'req-123456',
      user_id: 'user-123456',
      style: 'anime',
      aspect_ratio: '16:9',
      off_peak: true,
      movement_amplitude: 'auto',
      watermark_enabled: false,
      sensitive_word_check: { type: 'ALL', status: 'DISABLE' },
    });
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['cogvideox-3', 'models:'] });
  });

  it('accepts the Python SDK body with every unset field null', async () => {
    const response = await postJson(test, url, {
      model: 'cogvideox-3',
      prompt: 'x',
      quality: null,
      with_audio: null,
      image_url: null,
      size: null,
      fps: null,
      duration: null,
      request_id: null,
      user_id: null,
      style: null,
      aspect_ratio: null,
      off_peak: null,
      movement_amplitude: null,
      watermark_enabled: null,
      sensitive_word_check: null,
    });
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['cogvideox-3'] });
  });

  it('answers 1211 for a model neither the platform nor the catalog knows', async () => {
    const response = await postJson(test, url, { ...valid, model: 'sora-2' });
    assertPlatformError(response, { status: 400, code: '1211', mentions: ['sora-2'] });
  });

  it('accepts a catalog model and names its backend when this build cannot run it', async () => {
    const response = await postJson(test, url, { ...valid, model: 'my-video' });
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['my-video', 'comfyui'] });
  });

  it('takes two 5 MB images inline (body limit)', async () => {
    const image = `data:image/png;base64,${base64Of(fiveMiB)}`;
    const response = await postJson(test, url, { ...valid, image_url: [image, image] });
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['cogvideox-3'] });
  });

  it('is served under every alias prefix', async () => {
    for (const prefix of ['/api/paas/v4', '/api/coding/paas/v4']) {
      const response = await postJson(test, `${prefix}/videos/generations`, { ...valid, fps: 24 });
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['fps'] });
    }
  });
});
