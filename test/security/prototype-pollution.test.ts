import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatApiKey } from '../../src/core/auth/api-key.ts';
import { jsonReply, startFakeOpenAiServer, vllmCompletion, type FakeOpenAiServer, type RecordedRequest } from '../helpers/fake-openai-server.ts';
import { encodeForm, type FormEntry } from '../helpers/multipart-form.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/**
 * No name a caller chooses — a form field, a JSON key, a query parameter, a model or tool name —
 * may reach a prototype. Every multipart and JSON route of the app is sent `__proto__`,
 * `constructor` and `prototype` in plain and bracketed forms; afterwards Object.prototype must be
 * as it was, a user key must still be refused by /admin, and an engine must receive exactly the
 * headers it received before.
 */
describe('Prototype pollution through request names', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  /** A user key with a policy without `scope`: the kind a polluted `scope` would make an admin. */
  let userKey: string;
  let adminKey: string;
  /** The headers of an engine call before any attack. */
  let headersBefore: string[] = [];
  const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();
  const arrayPrototypeNames = Object.getOwnPropertyNames(Array.prototype).sort();
  /** What an engine answers: a count for tokenize, a completion for anything else. */
  const engineReply = (request: RecordedRequest) =>
    request.path.endsWith('/tokenize') ? jsonReply({ count: 3, tokens: [1, 2, 3], max_model_len: 4096 }) : jsonReply(vllmCompletion({ content: 'Hi!' }));
  /** Every property name the attacks try to add. */
  const injected = ['scope', 'x-polluted', 'transfer-encoding', 'polluted', 'x', 'admin', 'requestsPerMinute', 'models'];

  before(async () => {
    engine = await startFakeOpenAiServer();
    engine.setDefault(engineReply);
    const entry = { backend: 'openai-compatible' as const, baseUrl: engine.baseUrl, upstreamModel: 'zai-org/GLM' };
    test = await startTestPlatform({ config: { models: { 'glm-4.7': entry } } });
    userKey = formatApiKey(
      await test.platform.keys.create({
        name: 'limited user',
        policy: { requestsPerMinute: 10_000, concurrency: { perModel: 100, models: { 'glm-4.7': 100 } }, credit: { prices: { 'glm-4.7': { perCall: 0 } } } },
      }),
    );
    adminKey = formatApiKey(await test.platform.keys.create({ name: 'operator', policy: { scope: 'admin' } }));
    headersBefore = await chatHeaderNames();
  });
  after(async () => {
    restorePrototypes();
    await test.close();
    await engine.close();
  });

  /**
   * Removes whatever an attack added to Object.prototype or Array.prototype and says what that
   * was, so that one failed test does not poison the next (nor the test runner, which reads
   * properties such as `scope` of its own objects).
   */
  function restorePrototypes(): string[] {
    const added: string[] = [];
    for (const [prototype, names] of [
      [Object.prototype, prototypeNames],
      [Array.prototype, arrayPrototypeNames],
    ] as const) {
      for (const name of Object.getOwnPropertyNames(prototype)) {
        if (names.includes(name)) continue;
        added.push(name);
        Reflect.deleteProperty(prototype, name);
      }
    }
    return added;
  }

  /** Nothing was added to a prototype (and what was is removed again). */
  function assertPrototypesUntouched(after: string): void {
    const fresh: Record<string, unknown> = {};
    const inherited = injected.filter((name) => fresh[name] !== undefined);
    assert.deepEqual({ added: restorePrototypes(), inherited }, { added: [], inherited: [] }, `prototypes after ${after}`);
  }

  /** Sends one form to a multipart route with the default key; the answer. */
  async function sendForm(method: string, path: string, entries: readonly FormEntry[]) {
    const { payload, contentType } = await encodeForm(entries);
    return test.app.inject({ method, url: path, headers: { authorization: test.authorization, 'content-type': contentType }, payload });
  }

  async function chatHeaderNames(): Promise<string[]> {
    engine.reset();
    engine.setDefault(engineReply);
    const response = await test.app.inject({
      method: 'POST',
      url: '/paas/v4/chat/completions',
      headers: { authorization: test.authorization, 'content-type': 'application/json' },
      payload: JSON.stringify({ model: 'glm-4.7', messages: [{ role: 'user', content: 'Hello' }] }),
    });
    assert.equal(response.statusCode, 200, response.body);
    const received = engine.requests[0];
    assert.ok(received !== undefined, 'the engine was called');
    return Object.keys(received.headers).sort();
  }

  interface Operation {
    readonly method: string;
    readonly path: string;
    readonly contentTypes: readonly string[];
  }

  /** Every documented operation, with a placeholder for each path parameter. */
  async function operations(): Promise<Operation[]> {
    const response = await test.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    const document = response.json() as { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>> };
    const found: Operation[] = [];
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        found.push({
          method: method.toUpperCase(),
          path: path.replaceAll(/\{[^}]+\}/g, 'placeholder-id'),
          contentTypes: Object.keys(operation.requestBody?.content ?? {}),
        });
      }
    }
    return found;
  }

  /** Field names that address a prototype, in every form the form reader knows (plain, `name[]`, `name[key]`). */
  const pollutingFieldNames = [
    '__proto__[scope]',
    '__proto__[x-polluted]',
    '__proto__[transfer-encoding]',
    '__proto__[]',
    '__proto__',
    'constructor',
    'constructor[prototype]',
    'constructor[prototype][x]',
    'prototype',
    'prototype[polluted]',
    'hotwords[__proto__]',
    'purpose[constructor]',
    'model[prototype]',
  ];

  it('multipart fields named __proto__, constructor or prototype are refused or kept as data, never written into a prototype', async () => {
    const multipart = (await operations()).filter((operation) => operation.contentTypes.includes('multipart/form-data'));
    const paths = multipart.map((operation) => operation.path);
    assert.ok(paths.includes('/paas/v4/files') && paths.includes('/paas/v4/audio/transcriptions'), paths.join(', '));
    const failures: string[] = [];
    for (const { method, path } of multipart) {
      for (const name of pollutingFieldNames) {
        const values = name === '__proto__[transfer-encoding]' ? ['chunked'] : ['admin', '1'];
        for (const value of values) {
          const response = await sendForm(method, path, [
            ['purpose', 'user_data'],
            ['model', 'glm-asr-2512'],
            [name, value],
            [name, value],
            ['file', new TextEncoder().encode('hello'), 'notes.txt', 'text/plain'],
          ]);
          const refusedClearly = response.statusCode < 400 || /"code":"12(10|13|14)"/.test(response.body);
          if (response.statusCode >= 500 || !refusedClearly) failures.push(`${path} with ${name}=${value}: ${response.statusCode} ${response.body}`);
        }
        // A file part under such a name is dropped or refused just the same.
        const response = await sendForm(method, path, [[name, new TextEncoder().encode('x'), 'x.txt', 'text/plain']]);
        if (response.statusCode >= 500) failures.push(`${path} with a file part named ${name}: ${response.statusCode} ${response.body}`);
      }
    }
    assertPrototypesUntouched('the multipart attacks');
    assert.deepEqual(failures, []);
  });

  it('a multipart field named __proto__[scope] is refused with 1210 naming it', async () => {
    try {
      const response = await sendForm('POST', '/paas/v4/files', [
        ['purpose', 'user_data'],
        ['__proto__[scope]', 'admin'],
        ['file', new TextEncoder().encode('hello'), 'notes.txt', 'text/plain'],
      ]);
      assert.equal(response.statusCode, 400, response.body);
      assert.match(response.body, /"code":"1210".*__proto__\[scope\]/);
    } finally {
      restorePrototypes();
    }
  });

  /** JSON bodies with prototype keys at the top, in messages, in tools, in free-form objects. */
  const pollutingBodies = [
    '{"__proto__":{"scope":"admin","x-polluted":"1"}}',
    '{"constructor":{"prototype":{"scope":"admin","x-polluted":"1"}}}',
    '{"model":"glm-4.7","messages":[{"role":"user","content":"hi","__proto__":{"polluted":"1"}}]}',
    '{"model":"glm-4.7","messages":[{"role":"user","content":"hi","constructor":{"prototype":{"polluted":"1"}}}]}',
    '{"model":"glm-4.7","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"__proto__":{"type":"string"}}}}}]}',
    '{"model":"glm-4.7","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"__proto__","parameters":{"type":"object","properties":{"constructor":{"type":"string"},"prototype":{"type":"string"}}}}}]}',
    '{"model":"glm-4.7","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":{"type":"object","properties":{"constructor":{"type":"object","properties":{"prototype":{"type":"string"}}}}}}}}',
    '{"constructor":{"scope":"admin"},"prototype":{"scope":"admin"},"custom_variables":{"constructor":{"x":"1"},"prototype":{"x":"1"}},"metadata":{"constructor":"1"}}',
    '{"policy":{"scope":"user","__proto__":{"scope":"admin"}},"name":"x"}',
    '{"policy":{"concurrency":{"models":{"constructor":1,"prototype":2}},"credit":{"prices":{"constructor":{"perCall":1}}}},"name":"x"}',
    // Model names are names too: every lookup by model must find nothing for these.
    '{"model":"constructor","messages":[{"role":"user","content":"hi"}],"input":"hi","prompt":"hi","agent_id":"constructor","search_engine":"constructor","url":"http://127.0.0.1/"}',
    '{"model":"__proto__","messages":[{"role":"user","content":"hi"}],"input":"hi","prompt":"hi","agent_id":"__proto__","search_engine":"__proto__"}',
    '{"model":"toString","messages":[{"role":"user","content":"hi"}],"input":"hi","prompt":"hi","agent_id":"hasOwnProperty","search_engine":"valueOf"}',
  ];

  it('every JSON route refuses or ignores prototype keys, and model names such as constructor find nothing', async () => {
    const json = (await operations()).filter((operation) => operation.contentTypes.includes('application/json'));
    assert.ok(json.length > 10, `only ${json.length} JSON operations documented`);
    for (const { method, path } of json) {
      for (const authorization of [`Bearer ${userKey}`, `Bearer ${adminKey}`]) {
        for (const payload of pollutingBodies) {
          const response = await test.app.inject({ method, url: path, headers: { authorization, 'content-type': 'application/json' }, payload });
          assert.ok(response.statusCode < 500, `${method} ${path} with ${payload}: ${response.statusCode} ${response.body}`);
        }
      }
    }
    // A body Fastify's parser would otherwise take: refused as a whole, naming no field.
    const refused = await test.app.inject({
      method: 'POST',
      url: '/paas/v4/chat/completions',
      headers: { authorization: test.authorization, 'content-type': 'application/json' },
      payload: '{"__proto__":{"scope":"admin"}}',
    });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(refused.body, /"code":"1210"/);
    assertPrototypesUntouched('the JSON attacks');
  });

  it('query strings with prototype names change nothing', async () => {
    const query = '__proto__[scope]=admin&__proto__=x&constructor[prototype][x]=1&prototype[polluted]=1&__proto__.polluted=1';
    for (const { method, path } of await operations()) {
      if (method !== 'GET') continue;
      const response = await test.app.inject({ method, url: `${path}?${query}`, headers: { authorization: `Bearer ${userKey}` } });
      assert.ok(response.statusCode < 500, `GET ${path}?${query}: ${response.statusCode} ${response.body}`);
    }
    assertPrototypesUntouched('the query strings');
  });

  it('after __proto__[scope]=admin and __proto__[ownRowsForUsers]=true, a user key with a policy is still refused by the admin API', async () => {
    try {
      await sendForm('POST', '/paas/v4/files', [
        ['purpose', 'user_data'],
        ['__proto__[scope]', 'admin'],
        ['__proto__[ownRowsForUsers]', 'true'],
        ['file', new TextEncoder().encode('hello'), 'notes.txt', 'text/plain'],
      ]);
      const keys = await test.app.inject({ method: 'GET', url: '/admin/keys', headers: { authorization: `Bearer ${userKey}` } });
      assert.equal(keys.statusCode, 434, keys.body);
      assert.match(keys.body, /"code":"1220"/);
      // Usage answers any key with its own rows only: another key's are refused.
      const adminId = adminKey.split('.')[0] ?? '';
      const usage = await test.app.inject({ method: 'GET', url: `/admin/usage?key_id=${adminId}`, headers: { authorization: `Bearer ${userKey}` } });
      assert.equal(usage.statusCode, 403, usage.body);
      const operator = await test.app.inject({ method: 'GET', url: '/admin/keys', headers: { authorization: `Bearer ${adminKey}` } });
      assert.equal(operator.statusCode, 200, operator.body);
    } finally {
      restorePrototypes();
    }
  });

  it('after __proto__[x-polluted] and __proto__[transfer-encoding], the engine receives exactly the headers it received before', async () => {
    assert.ok(headersBefore.length > 0, 'the headers of a call before the attacks were recorded');
    try {
      for (const [name, value] of [
        ['__proto__[x-polluted]', 'yes'],
        ['__proto__[transfer-encoding]', 'chunked'],
      ] as const) {
        await sendForm('POST', '/paas/v4/audio/transcriptions', [
          ['model', 'glm-asr-2512'],
          [name, value],
          ['file', new TextEncoder().encode('hello'), 'a.wav', 'audio/wav'],
        ]);
      }
      assert.deepEqual(await chatHeaderNames(), headersBefore);
    } finally {
      restorePrototypes();
    }
  });
});
