import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AdmittedRoute } from '../../src/http/admission-hooks.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { encodeForm } from '../helpers/multipart-form.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/** Routes served without a key, by design: health, metrics, the API description, signed media downloads, the console's page and assets (its calls carry a key). */
const publicByDesign = [/^\/healthz$/, /^\/readyz$/, /^\/metrics$/, /^\/openapi\.json$/, /^\/docs(\/.*)?$/, /^\/blobs\/\*$/, /^\/$/, /^\/console(\/\*)?$/];

const user = [{ role: 'user', content: 'Hello' }];
const disallowed = 'a-model-this-key-may-not-use';

/**
 * A body that passes each model route's schema and names `disallowed` as its model, by the path
 * inside the prefix; a new model route fails the walk until it gets one here.
 */
const modelCallBodies: Record<string, () => Promise<{ payload: string | Buffer; contentType: string }>> = {
  '/chat/completions': json({ model: disallowed, messages: user }),
  '/async/chat/completions': json({ model: disallowed, messages: user }),
  '/tokenizer': json({ model: disallowed, messages: user }),
  '/images/generations': json({ model: disallowed, prompt: 'a cat' }),
  '/async/images/generations': json({ model: disallowed, prompt: 'a cat' }),
  '/videos/generations': json({ model: disallowed, prompt: 'a cat' }),
  '/web_search': json({ search_engine: disallowed, search_query: 'cats' }),
  '/layout_parsing': json({ model: disallowed, file: 'https://example.com/page.png' }),
  '': json({ agent_id: 'general_translation', messages: user }),
  // The reader names no model: it is admitted as the tool it is, under its ledger name.
  '/reader': json({ url: 'https://example.com/' }),
  '/audio/transcriptions': () =>
    encodeForm([
      ['model', disallowed],
      ['file', new Uint8Array([82, 73, 70, 70]), 'speech.wav', 'audio/wav'],
    ]),
};

function json(body: unknown) {
  return async () => ({ payload: JSON.stringify(body), contentType: 'application/json' });
}

/** A concrete URL for a route pattern. */
const concrete = (url: string) => url.replace(/:[^/]+/g, 'some-id').replace(/\*$/, 'some/key');

describe('every route goes through the one admission path (route-table walk)', () => {
  let test: TestPlatform;
  let routes: readonly AdmittedRoute[];
  const keys: Record<'rateZero' | 'modelLimited' | 'admin', string> = { rateZero: '', modelLimited: '', admin: '' };
  before(async () => {
    test = await startTestPlatform();
    routes = test.app.admittedRoutes;
    const admin = test.platform.keyAdmin;
    keys.rateZero = (await admin.create({ policy: { requestsPerMinute: 0 } })).key;
    keys.modelLimited = (await admin.create({ policy: { models: ['glm-4.7'] } })).key;
    keys.admin = (await admin.create({ policy: { scope: 'admin', models: ['glm-4.7'] } })).key;
  });
  after(() => test.close());

  it('walks a full route table: every prefix, the admin API, the public routes', () => {
    const urls = new Set(routes.map((route) => route.url));
    for (const url of ['/paas/v4/chat/completions', '/api/coding/paas/v4/files/:id/content', '/api/paas/v4/v1/agents', '/admin/keys/:id', '/healthz']) {
      assert.ok(urls.has(url), `${url} is registered`);
    }
    assert.ok(routes.length > 90, `${routes.length} routes`);
  });

  it('every route is public by design or has an admission rule in its config', () => {
    const publicRoutes = routes.filter((route) => route.public);
    const unexpected = publicRoutes.filter((route) => !publicByDesign.some((pattern) => pattern.test(route.url)));
    assert.deepEqual(
      unexpected.map((route) => `${route.method} ${route.url}`),
      [],
      'public routes outside the design',
    );
    const missing = routes.filter((route) => !route.public && route.rule === undefined);
    assert.deepEqual(
      missing.map((route) => `${route.method} ${route.url}`),
      [],
      'authenticated routes without config.admission',
    );
  });

  it('every authenticated route refuses a key over its rate limit (1303): before reading any body, or in the call check where the model is in the body', async () => {
    const authenticated = routes.filter((route) => !route.public);
    const failures: string[] = [];
    for (const route of authenticated) {
      // Routes whose model is in the body fold the rate into their call check, so their body must
      // be read (a valid one); every other route refuses on a body that would not even parse.
      const callBody = typeof route.rule?.model === 'function' ? modelCallBodies[route.routePath] : undefined;
      const { payload, contentType } =
        callBody !== undefined
          ? await callBody()
          : { payload: route.method === 'GET' || route.method === 'HEAD' ? undefined : '{', contentType: 'application/json' };
      const response = await test.app.inject({
        method: route.method as 'GET',
        url: concrete(route.url),
        headers: { authorization: `Bearer ${keys.rateZero}`, 'content-type': contentType },
        ...(payload === undefined ? {} : { payload }),
      });
      const code = route.method === 'HEAD' ? undefined : (response.json() as { error?: { code?: string } }).error?.code;
      if (response.statusCode !== 429 || (route.method !== 'HEAD' && code !== '1303'))
        failures.push(`${route.method} ${route.url}: ${response.statusCode} ${code}`);
    }
    assert.deepEqual(failures, []);
    assert.ok(authenticated.length > 70, `${authenticated.length} authenticated routes walked`);
  });

  it('public routes do not count against any key', async () => {
    const response = await test.app.inject({ method: 'GET', url: '/healthz', headers: { authorization: `Bearer ${keys.rateZero}` } });
    assert.equal(response.statusCode, 200);
  });

  it('every model route refuses a model outside the key policy (1220), JSON and multipart alike', async () => {
    const modelRoutes = routes.filter((route) => !route.public && route.rule !== undefined && route.rule.model !== 'none');
    const failures: string[] = [];
    for (const route of modelRoutes) {
      const body = modelCallBodies[route.routePath];
      if (body === undefined) {
        failures.push(`${route.method} ${route.url}: no test body for '${route.routePath}'`);
        continue;
      }
      const { payload, contentType } = await body();
      const response = await test.app.inject({
        method: 'POST',
        url: route.url,
        headers: { authorization: `Bearer ${keys.modelLimited}`, 'content-type': contentType },
        payload,
      });
      const error = (response.json() as { error?: { code?: string; message?: string } }).error;
      const named = route.routePath === '' ? 'general_translation' : route.routePath === '/reader' ? 'web-reader' : disallowed;
      if (response.statusCode !== 434 || error?.code !== '1220' || error.message?.includes(named) !== true) {
        failures.push(`${route.method} ${route.url}: ${response.statusCode} ${response.body}`);
      }
    }
    assert.deepEqual(failures, []);
    // Each model route under each of its prefixes: chat, async chat ... audio, reader (10 paths) x 3, agents x 5.
    assert.equal(modelRoutes.length, 10 * 3 + 5);
  });

  it('an allowed model passes admission and meets the route as before', async () => {
    const response = await test.app.inject({
      method: 'POST',
      url: '/paas/v4/chat/completions',
      headers: { authorization: `Bearer ${keys.modelLimited}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ model: 'glm-4.7', messages: user }),
    });
    // No engine is configured for glm-4.7 in this platform: the route's own answer, not admission's.
    assert.notEqual((response.json() as { error?: { code?: string } }).error?.code, '1220');
  });

  it('admin routes take admin-scoped keys only (1220 for others)', async () => {
    const refused = await test.app.inject({ method: 'GET', url: '/admin/keys', headers: { authorization: test.authorization } });
    assertPlatformError(refused, { status: 434, code: '1220', mentions: ['admin scope'] });
    assert.equal(refused.headers['x-should-retry'], 'false');
    const allowed = await test.app.inject({ method: 'GET', url: '/admin/keys', headers: { authorization: `Bearer ${keys.admin}` } });
    assert.equal(allowed.statusCode, 200, allowed.body);
  });
});
