import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { formatApiKey } from '../../src/core/auth/api-key.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startFakeOpenAiServer, vllmCompletion, vllmError, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { startMediaTestPlatform, waitForTask } from '../helpers/media-test-platform.ts';
import { pythonSdkHeaders, sendRawRequest } from '../helpers/python-sdk-request.ts';
import { postJson, type TestPlatform } from '../helpers/test-platform.ts';
import { waitFor } from '../tasks/task-test-kit.ts';

const submitPath = '/api/paas/v4/async/chat/completions';
const user = [{ role: 'user', content: 'Hello' }];
const idOf = (key: string) => key.split('.')[0] ?? '';

/** What the Python SDK's chat.asyncCompletions.create sends when the caller gives only these: its unset defaults as null (docs/wire.md §1.9). */
function pythonSdkBody(fields: Record<string, unknown>): Record<string, unknown> {
  return { ...fields, response_format: null, thinking: null };
}

interface ChatTaskAnswer {
  readonly id: string;
  readonly request_id: string;
  readonly model: string;
  readonly task_status: 'PROCESSING' | 'SUCCESS' | 'FAIL';
  readonly choices: { index: number; finish_reason: string; message: Record<string, unknown> }[];
  readonly usage?: Record<string, unknown>;
  readonly web_search?: unknown[];
  readonly error?: { code: string; message: string };
}

describe('POST /paas/v4/async/chat/completions through the task engine (fake vLLM on loopback)', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  let port = 0;
  before(async () => {
    engine = await startFakeOpenAiServer();
    test = await startMediaTestPlatform({ models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'zai-org/GLM' } } });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    port = (test.app.server.address() as AddressInfo).port;
  });
  beforeEach(() => engine.reset());
  after(async () => {
    await test.close();
    await engine.close();
  });

  /** One request byte for byte as the Python SDK (httpx) sends it: its headers, JSON body with Content-Length, none on GET. */
  async function pythonSdk(method: 'GET' | 'POST', path: string, key: string, body?: unknown) {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const length: [string, string][] = payload === undefined ? [] : [['Content-Length', String(Buffer.byteLength(payload))]];
    const response = await sendRawRequest(port, {
      method,
      path,
      headers: [...pythonSdkHeaders(key), ...length],
      ...(payload === undefined ? {} : { body: payload }),
    });
    return { status: response.status, body: response.body, json: () => JSON.parse(response.body) as Record<string, unknown> };
  }

  /** retrieve_completion_result until the task is no longer PROCESSING. */
  async function pollAsPythonSdk(id: string, key: string): Promise<ChatTaskAnswer> {
    return waitFor(
      async () => {
        const response = await pythonSdk('GET', `/api/paas/v4/async-result/${id}`, key);
        assert.equal(response.status, 200, response.body);
        return response.json() as unknown as ChatTaskAnswer;
      },
      (answer) => answer.task_status !== 'PROCESSING',
    );
  }

  it("Python SDK: submit answers {id, request_id, model, task_status: PROCESSING}; the poll ends SUCCESS with the sync answer's message and usage", async () => {
    engine.enqueue({
      kind: 'json',
      body: vllmCompletion({ reasoning: 'Think.', content: 'Hi!', usage: { promptTokens: 12, completionTokens: 4, cachedTokens: 8 } }),
    });
    const submitted = await pythonSdk('POST', submitPath, test.key, pythonSdkBody({ model: 'glm-4.7', messages: user, request_id: 'async-chat-0001' }));
    assert.equal(submitted.status, 200, submitted.body);
    const submission = submitted.json();
    assert.deepEqual(Object.keys(submission).sort(), ['id', 'model', 'request_id', 'task_status']);
    assert.equal(submission['model'], 'glm-4.7');
    assert.equal(submission['request_id'], 'async-chat-0001');
    assert.equal(submission['task_status'], 'PROCESSING');

    const done = await pollAsPythonSdk(String(submission['id']), test.key);
    assert.equal(done.task_status, 'SUCCESS', JSON.stringify(done));
    assert.equal(done.id, submission['id']);
    assert.equal(done.request_id, 'async-chat-0001');
    assert.equal(done.model, 'glm-4.7');
    assert.deepEqual(done.choices, [{ index: 0, message: { role: 'assistant', content: 'Hi!', reasoning_content: 'Think.' }, finish_reason: 'stop' }]);
    assert.deepEqual(done.usage, { prompt_tokens: 12, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 8 }, total_tokens: 16 });
    assert.equal(engine.requests.length, 1);
  });

  it('sends the engine exactly what sync chat sends for the same body (mapping, per-model defaults, thinking), web_search tool included', async () => {
    engine.setDefault({ kind: 'json', body: vllmCompletion({ content: 'ok' }) });
    const body = pythonSdkBody({
      model: 'glm-4.7',
      messages: [{ role: 'system', content: 'Be brief.' }, ...user],
      do_sample: false,
      max_tokens: 64,
      stop: ['END'],
      tools: [{ type: 'web_search', web_search: { enable: true, search_result: true } }],
    });
    const sync = await postJson(test, '/paas/v4/chat/completions', body);
    assert.equal(sync.statusCode, 200, sync.body);
    const submitted = await postJson(test, '/paas/v4/async/chat/completions', body);
    assert.equal(submitted.statusCode, 200, submitted.body);
    const done = (await waitForTask(test, (submitted.json() as { id: string }).id)) as unknown as ChatTaskAnswer;
    assert.equal(done.task_status, 'SUCCESS', JSON.stringify(done));
    assert.equal(engine.requests.length, 2);
    assert.deepEqual(engine.requests[1]?.body, engine.requests[0]?.body);
    const syncAnswer = sync.json() as { choices: unknown; web_search: unknown };
    assert.deepEqual(done.choices, syncAnswer.choices);
    assert.deepEqual(done.web_search, syncAnswer.web_search, 'the web_search tool ran and its (empty) results are shown, as on sync chat');
  });

  it('Python SDK: an engine error ends the task FAIL with the reason and no choices; the engine is not asked again', async () => {
    engine.setDefault(vllmError(400, 'temperature must be positive'));
    const submitted = await pythonSdk('POST', submitPath, test.key, pythonSdkBody({ model: 'glm-4.7', messages: user }));
    assert.equal(submitted.status, 200, submitted.body);
    const done = await pollAsPythonSdk(String(submitted.json()['id']), test.key);
    assert.equal(done.task_status, 'FAIL');
    assert.deepEqual(done.choices, []);
    assert.equal(done.usage, undefined);
    assert.equal(done.error?.code, '1214');
    assert.match(done.error?.message ?? '', /temperature must be positive/);
    assert.equal(engine.requests.length, 1, 'an invalid request is not retried');
  });

  it("answers 404 to another key's poll, as for a task that never existed", async () => {
    engine.enqueue({ kind: 'json', body: vllmCompletion({ content: 'mine' }) });
    const submitted = await postJson(test, '/paas/v4/async/chat/completions', { model: 'glm-4.7', messages: user });
    const id = (submitted.json() as { id: string }).id;
    const other = formatApiKey(await test.platform.keys.create({ name: 'other' }));
    const foreign = await pythonSdk('GET', `/api/paas/v4/async-result/${id}`, other);
    assert.equal(foreign.status, 404, foreign.body);
    assert.equal((JSON.parse(foreign.body) as { error: { code: string } }).error.code, '404');
    assert.equal((await waitForTask(test, id)).task_status, 'SUCCESS', 'the owner still reads it');
  });

  it('refuses stream and tool_stream set to true, naming the field and where streams are', async () => {
    for (const field of ['stream', 'tool_stream']) {
      const response = await postJson(test, '/paas/v4/async/chat/completions', { model: 'glm-4.7', messages: user, [field]: true });
      assertPlatformError(response, { status: 400, code: '1214', mentions: [field, '/async-result/', '/chat/completions'] });
    }
    const accepted = await postJson(test, '/paas/v4/async/chat/completions', { model: 'glm-4.7', messages: user, stream: false, tool_stream: false });
    assert.equal(accepted.statusCode, 200, accepted.body);
    engine.setDefault({ kind: 'json', body: vllmCompletion({ content: 'ok' }) });
    await waitForTask(test, (accepted.json() as { id: string }).id);
  });

  it('checks the body as sync chat does, and refuses a model without an engine at submission', async () => {
    assertPlatformError(await postJson(test, '/paas/v4/async/chat/completions', { model: 'glm-4.7', messages: user, max_tokens: 200_000 }), {
      status: 400,
      code: '1214',
      mentions: ['max_tokens'],
    });
    assertPlatformError(await postJson(test, '/paas/v4/async/chat/completions', { model: 'glm-4.7', messages: [{ role: 'system', content: 'x' }] }), {
      status: 400,
      code: '1214',
    });
    assertPlatformError(await postJson(test, '/paas/v4/async/chat/completions', { model: 'glm-4.7' }), { status: 400, code: '1213', mentions: ['messages'] });
    assertPlatformError(await postJson(test, '/paas/v4/async/chat/completions', { model: 'glm-4.5', messages: user }), {
      status: 400,
      code: '1221',
      mentions: ['glm-4.5'],
    });
    assert.equal(engine.requests.length, 0);
  });

  it('is served under every model prefix', async () => {
    for (const prefix of ['/paas/v4', '/api/coding/paas/v4']) {
      assertPlatformError(await postJson(test, `${prefix}/async/chat/completions`, { model: 'glm-4.7', messages: user, temperature: 2 }), {
        status: 400,
        code: '1214',
        mentions: ['temperature'],
      });
    }
  });

  it('reserves the most a task can cost on submit and settles it to the real cost once; the tokens reach the ledger once, and a failed task gives it all back', async () => {
    // 10 prompt tokens x 2 + 5 completion tokens x 4 = 40, plus 100 per call.
    const prices = { 'glm-4.7': { perCall: 100, perPromptToken: 2, perCompletionToken: 4 } };
    const { key } = await test.platform.keyAdmin.create({ policy: { credit: { balance: 1000, prices } } });
    const keyId = idOf(key);
    engine.enqueue({ kind: 'json', delayMs: 500, body: vllmCompletion({ content: 'ok', usage: { promptTokens: 10, completionTokens: 5 } }) });
    const submitted = await pythonSdk(
      'POST',
      submitPath,
      key,
      pythonSdkBody({ model: 'glm-4.7', messages: user, max_tokens: 20, request_id: 'async-chat-credit' }),
    );
    assert.equal(submitted.status, 200, submitted.body);
    const held = (await test.platform.keyAdmin.get(keyId))?.creditHeld ?? 0;
    // perCall, the request's bytes as prompt tokens and max_tokens of output, while the engine works.
    assert.ok(held > 100 + 20 * 4, `reserved ${held}`);
    assert.equal(await test.platform.credits.balance(keyId), 1000 - held);

    const id = String(submitted.json()['id']);
    assert.equal((await pollAsPythonSdk(id, key)).task_status, 'SUCCESS');
    // Polled again: reading a result records nothing.
    await pollAsPythonSdk(id, key);
    await test.platform.credits.reconcile(Date.now());
    await waitFor(
      () => test.platform.credits.balance(keyId),
      (balance) => balance === 1000 - 100 - 40,
    );
    assert.equal((await test.platform.keyAdmin.get(keyId))?.creditHeld, 0);
    const rows = await waitFor(
      () => test.platform.ledger.listForKey(keyId),
      (records) => records.length > 0,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(
      (await test.platform.ledger.listForKey(keyId)).map((row) => [row.endpoint, row.model, row.requestId, row.promptTokens, row.completionTokens, row.cost]),
      [['async.chat.completions', 'glm-4.7', 'async-chat-credit', 10, 5, 140]],
    );
    assert.equal(rows.length, 1);

    engine.enqueue(vllmError(400, 'refused'));
    const failing = await pythonSdk('POST', submitPath, key, pythonSdkBody({ model: 'glm-4.7', messages: user, max_tokens: 20 }));
    assert.ok(((await test.platform.credits.balance(keyId)) ?? 0) < 860, 'reserved again for the second task');
    assert.equal((await pollAsPythonSdk(String(failing.json()['id']), key)).task_status, 'FAIL');
    await waitFor(
      () => test.platform.credits.balance(keyId),
      (balance) => balance === 860,
    );
    assert.equal((await test.platform.ledger.listForKey(keyId)).length, 1, 'a failed task records no usage');
  });
});
