import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { sharedIdCases } from '../helpers/shared-id-cases.ts';
import { itRejectsEach } from '../helpers/rejected-cases.ts';

const url = '/paas/v4/reader';
const valid = { url: 'http://10.0.0.1/article' };

/** Each case breaks one rule; the answer must name the field (1213 missing, 1214 invalid). */
const rejected: { name: string; body: Record<string, unknown>; code: string; field: string }[] = [
  { name: 'url missing', body: {}, code: '1213', field: 'url' },
  { name: 'url null', body: { url: null }, code: '1213', field: 'url' },
  { name: 'url empty', body: { url: '' }, code: '1214', field: 'url' },
  { name: 'url not a string', body: { url: 42 }, code: '1214', field: 'url' },
  { name: 'url relative', body: { url: '/article' }, code: '1214', field: 'url' },
  { name: 'url without a scheme', body: { url: 'example.com/article' }, code: '1214', field: 'url' },
  { name: 'url of another scheme', body: { url: 'ftp://example.com/file' }, code: '1214', field: 'url' },
  { name: 'url of the file scheme', body: { url: 'file:///etc/passwd' }, code: '1214', field: 'url' },
  { name: 'timeout not numeric', body: { ...valid, timeout: 'abc' }, code: '1214', field: 'timeout' },
  { name: 'timeout negative', body: { ...valid, timeout: -1 }, code: '1214', field: 'timeout' },
  { name: 'timeout negative string', body: { ...valid, timeout: '-1' }, code: '1214', field: 'timeout' },
  { name: 'timeout 0', body: { ...valid, timeout: 0 }, code: '1214', field: 'timeout' },
  { name: 'timeout "0"', body: { ...valid, timeout: '0' }, code: '1214', field: 'timeout' },
  { name: 'timeout above the maximum', body: { ...valid, timeout: 121 }, code: '1214', field: 'timeout' },
  { name: 'timeout string above the maximum', body: { ...valid, timeout: '121' }, code: '1214', field: 'timeout' },
  { name: 'timeout boolean', body: { ...valid, timeout: true }, code: '1214', field: 'timeout' },
  { name: 'no_cache not boolean', body: { ...valid, no_cache: 'true' }, code: '1214', field: 'no_cache' },
  { name: 'return_format unknown', body: { ...valid, return_format: 'html' }, code: '1214', field: 'return_format' },
  { name: 'retain_images not boolean', body: { ...valid, retain_images: 1 }, code: '1214', field: 'retain_images' },
  { name: 'no_gfm not boolean', body: { ...valid, no_gfm: 'no' }, code: '1214', field: 'no_gfm' },
  { name: 'keep_img_data_url not boolean', body: { ...valid, keep_img_data_url: 0 }, code: '1214', field: 'keep_img_data_url' },
  { name: 'with_images_summary not boolean', body: { ...valid, with_images_summary: 'yes' }, code: '1214', field: 'with_images_summary' },
  { name: 'with_links_summary not boolean', body: { ...valid, with_links_summary: [] }, code: '1214', field: 'with_links_summary' },
  ...sharedIdCases(valid),
];

describe('POST /paas/v4/reader contract', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform();
  });
  after(() => test.close());

  itRejectsEach(() => test, url, rejected);

  // A request that passes validation reaches the reader, which refuses a private address without
  // touching the network: the 1214 'private address' answer proves the body was accepted.
  it('accepts a full request (unknown fields ignored) and hands it to the reader', async () => {
    const response = await postJson(test, url, {
      url: 'http://10.0.0.1:8080/a?b=c#d',
      timeout: 120,
      no_cache: true,
      return_format: 'text',
      retain_images: false,
      no_gfm: true,
      keep_img_data_url: true,
      with_images_summary: true,
      with_links_summary: true,
      request_id: 'req-123456',
      user_id: 'user-123456',
      model: 'reader',
    });
    assertPlatformError(response, { status: 400, code: '1214', mentions: ['private address', 'fetch.allow'] });
  });

  it('accepts null for every optional field', async () => {
    const response = await postJson(test, url, {
      ...valid,
      timeout: null,
      no_cache: null,
      return_format: null,
      retain_images: null,
      no_gfm: null,
      keep_img_data_url: null,
      with_images_summary: null,
      with_links_summary: null,
      request_id: null,
      user_id: null,
    });
    assertPlatformError(response, { status: 400, code: '1214', mentions: ['private address'] });
  });

  it('accepts timeout as a number or a numeric string', async () => {
    for (const timeout of [20, '20', 0.5, '2.5', '120']) {
      const response = await postJson(test, url, { ...valid, timeout });
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['private address'] });
    }
  });

  it('is served under every alias prefix', async () => {
    for (const prefix of ['/api/paas/v4', '/api/coding/paas/v4']) {
      const response = await postJson(test, `${prefix}/reader`, { ...valid, timeout: 'abc' });
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['timeout'] });
    }
  });
});
