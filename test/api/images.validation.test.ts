import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { sharedIdCases } from '../helpers/shared-id-cases.ts';

const syncUrl = '/paas/v4/images/generations';
const asyncUrl = '/paas/v4/async/images/generations';
const valid = { model: 'glm-image', prompt: 'A cat on a windowsill' };
const cogview = { model: 'cogview-4-250304', prompt: 'A cat on a windowsill' };

type Case = { name: string; body: Record<string, unknown>; code: string; field: string; mentions?: string[] };

/** Each case breaks one rule of the synchronous endpoint; the answer must name the field. */
const rejectedSync: Case[] = [
  { name: 'model missing', body: { prompt: 'x' }, code: '1213', field: 'model' },
  { name: 'prompt missing', body: { model: 'glm-image' }, code: '1213', field: 'prompt' },
  { name: 'prompt empty', body: { ...valid, prompt: '' }, code: '1214', field: 'prompt' },
  { name: 'prompt blank', body: { ...valid, prompt: '   ' }, code: '1214', field: 'prompt' },
  { name: 'prompt not a string', body: { ...valid, prompt: 42 }, code: '1214', field: 'prompt' },
  { name: 'quality unknown', body: { ...valid, quality: 'ultra' }, code: '1214', field: 'quality' },
  { name: 'size not WxH', body: { ...valid, size: 'large' }, code: '1214', field: 'size' },
  { name: 'size with a star', body: { ...valid, size: '1024*1024' }, code: '1214', field: 'size' },
  { name: 'size not a string', body: { ...valid, size: 1024 }, code: '1214', field: 'size' },
  { name: 'glm-image side below 1024', body: { ...valid, size: '992x1280' }, code: '1214', field: 'size', mentions: ['992'] },
  { name: 'glm-image side above 2048', body: { ...valid, size: '2080x1024' }, code: '1214', field: 'size', mentions: ['2080'] },
  { name: 'glm-image side not divisible by 32', body: { ...valid, size: '1040x1040' }, code: '1214', field: 'size', mentions: ['32'] },
  { name: 'glm-image above 2^22 pixels', body: { ...valid, size: '2048x2080' }, code: '1214', field: 'size' },
  { name: 'glm-image given a cogview preset', body: { ...valid, size: '768x1344' }, code: '1214', field: 'size' },
  { name: 'cogview side below 512', body: { ...cogview, size: '496x1024' }, code: '1214', field: 'size', mentions: ['496'] },
  { name: 'cogview side above 2048', body: { ...cogview, size: '2064x512' }, code: '1214', field: 'size', mentions: ['2064'] },
  { name: 'cogview side not divisible by 16', body: { ...cogview, size: '1000x1000' }, code: '1214', field: 'size', mentions: ['16'] },
  { name: 'cogview above 2^21 pixels', body: { ...cogview, size: '2048x1040' }, code: '1214', field: 'size', mentions: ['2097152'] },
  { name: 'catalog model with a size not WxH', body: { model: 'my-painter', prompt: 'x', size: 'big' }, code: '1214', field: 'size' },
  ...sharedIdCases(valid),
];

/** Each case breaks one rule of the asynchronous endpoint (glm-image only, hd only). */
const rejectedAsync: Case[] = [
  { name: 'model missing', body: { prompt: 'x' }, code: '1213', field: 'model' },
  { name: 'prompt missing', body: { model: 'glm-image' }, code: '1213', field: 'prompt' },
  { name: 'prompt empty', body: { ...valid, prompt: '' }, code: '1214', field: 'prompt' },
  { name: 'cogview-4-250304', body: cogview, code: '1214', field: 'model', mentions: ['only glm-image'] },
  { name: 'a catalog model', body: { model: 'my-painter', prompt: 'x' }, code: '1214', field: 'model', mentions: ['only glm-image'] },
  { name: 'an unknown model', body: { model: 'dall-e-3', prompt: 'x' }, code: '1214', field: 'model', mentions: ['only glm-image'] },
  { name: 'quality standard', body: { ...valid, quality: 'standard' }, code: '1214', field: 'quality' },
  { name: 'size not WxH', body: { ...valid, size: '1280' }, code: '1214', field: 'size' },
  { name: 'side below 1024', body: { ...valid, size: '1024x992' }, code: '1214', field: 'size' },
  { name: 'side not divisible by 32', body: { ...valid, size: '1100x1100' }, code: '1214', field: 'size' },
  { name: 'above 2^22 pixels', body: { ...valid, size: '2080x2048' }, code: '1214', field: 'size' },
  { name: 'a cogview preset', body: { ...valid, size: '768x1344' }, code: '1214', field: 'size' },
  { name: 'request_id too short', body: { ...valid, request_id: 'abc' }, code: '1214', field: 'request_id' },
  { name: 'user_id too long', body: { ...valid, user_id: 'u'.repeat(129) }, code: '1214', field: 'user_id' },
];

/** Sizes every rule accepts: presets and custom sizes at the bounds. */
const acceptedSizes: { model: string; size: string }[] = [
  ...['1280x1280', '1568x1056', '1056x1568', '1472x1088', '1088x1472', '1728x960', '960x1728'].map((size) => ({ model: 'glm-image', size })),
  { model: 'glm-image', size: '1024x1024' },
  { model: 'glm-image', size: '2048x2048' },
  { model: 'glm-image', size: '1056x2048' },
  ...['1024x1024', '768x1344', '864x1152', '1344x768', '1152x864', '1440x720', '720x1440'].map((size) => ({ model: 'cogview-4-250304', size })),
  { model: 'cogview-4-250304', size: '512x512' },
  { model: 'cogview-4-250304', size: '2048x1024' },
  { model: 'cogview-4-250304', size: '512x2048' },
];

describe('POST /paas/v4/images/generations contract', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform({ config: { models: { 'my-painter': { backend: 'openai-images', baseUrl: 'http://127.0.0.1:9/v1' } } } });
  });
  after(() => test.close());

  for (const testCase of rejectedSync) {
    it(`rejects: ${testCase.name}`, async () => {
      const response = await postJson(test, syncUrl, testCase.body);
      assertPlatformError(response, { status: 400, code: testCase.code, mentions: [testCase.field, ...(testCase.mentions ?? [])] });
    });
  }

  for (const { model, size } of acceptedSizes) {
    it(`accepts ${model} size ${size}`, async () => {
      const response = await postJson(test, syncUrl, { model, prompt: 'x', size });
      assertPlatformError(response, { status: 400, code: '1221', mentions: [model] });
    });
  }

  it('accepts a full request (nulls as absent, Python SDK fields ignored) and says no engine is configured', async () => {
    const response = await postJson(test, syncUrl, {
      ...valid,
      quality: 'hd',
      size: '1280x1280',
      request_id: 'req-123456',
      user_id: 'user-123456',
      n: 1,
      response_format: 'url',
      style: 'vivid',
      user: 'someone',
      sensitive_word_check: { type: 'ALL', status: 'DISABLE' },
      watermark_enabled: true,
    });
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['glm-image', 'models:'] });
  });

  it('accepts null for every optional field', async () => {
    const response = await postJson(test, syncUrl, {
      ...cogview,
      quality: null,
      size: null,
      request_id: null,
      user_id: null,
      n: null,
      response_format: null,
      style: null,
      user: null,
      sensitive_word_check: null,
      watermark_enabled: null,
    });
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['cogview-4-250304'] });
  });

  it('answers 1211 for a model neither the platform nor the catalog knows', async () => {
    const response = await postJson(test, syncUrl, { model: 'dall-e-3', prompt: 'x' });
    assertPlatformError(response, { status: 400, code: '1211', mentions: ['dall-e-3'] });
  });

  it('accepts a catalog model with any WxH size and passes it to its engine', async () => {
    // Accepted: the request reaches the catalog's engine, which is not listening in this test.
    const response = await postJson(test, syncUrl, { model: 'my-painter', prompt: 'x', size: '3000x7' });
    assertPlatformError(response, { status: 500, code: '1234', mentions: ['my-painter'] });
  });

  it('is served under every alias prefix', async () => {
    for (const prefix of ['/api/paas/v4', '/api/coding/paas/v4']) {
      const response = await postJson(test, `${prefix}/images/generations`, { ...valid, size: '1000x1000' });
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['size'] });
    }
  });
});

describe('POST /paas/v4/async/images/generations contract', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform({ config: { models: { 'my-painter': { backend: 'openai-images', baseUrl: 'http://127.0.0.1:9/v1' } } } });
  });
  after(() => test.close());

  for (const testCase of rejectedAsync) {
    it(`rejects: ${testCase.name}`, async () => {
      const response = await postJson(test, asyncUrl, testCase.body);
      assertPlatformError(response, { status: 400, code: testCase.code, mentions: [testCase.field, ...(testCase.mentions ?? [])] });
    });
  }

  it('accepts a full request and says no engine is configured', async () => {
    const response = await postJson(test, asyncUrl, {
      ...valid,
      quality: 'hd',
      size: '2048x2048',
      request_id: 'req-123456',
      user_id: 'user-123456',
      watermark_enabled: false,
    });
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['glm-image', 'models:'] });
  });

  it('accepts null for every optional field', async () => {
    const response = await postJson(test, asyncUrl, { ...valid, quality: null, size: null, request_id: null, user_id: null });
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['glm-image'] });
  });

  it('is served under every alias prefix', async () => {
    for (const prefix of ['/api/paas/v4', '/api/coding/paas/v4']) {
      const response = await postJson(test, `${prefix}/async/images/generations`, { ...valid, quality: 'standard' });
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['quality'] });
    }
  });
});
