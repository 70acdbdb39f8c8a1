import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatRequest } from '../../src/core/chat/chat-types.ts';
import { ErrorBody } from '../../src/api/shared/common.schema.ts';
import { ApiError } from '../../src/core/errors/api-error.ts';
import { engineBindings } from '../../src/core/logging/engine-failure-log.ts';
import { instrumentBackend } from '../../src/core/metrics/instrument-backend.ts';
import { captureLog } from '../helpers/captured-log.ts';
import { startTestPlatform } from '../helpers/test-platform.ts';

/** A chat backend whose calls fail with `failure()`, instrumented with a captured logger. */
function failingChat(failure: () => Error) {
  const log = captureLog('info');
  const entry = { backend: 'openai-compatible', baseUrl: 'https://user:pass@engine.internal:8443/v1?key=sk-1', upstreamModel: 'zai-org/GLM' };
  const backend = instrumentBackend(
    { chat: { generate: () => Promise.reject(failure()), stream: () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(failure()) }) }) } },
    'glm-4.7',
    undefined,
    log.logger.child(engineBindings('glm-4.7', entry)),
  );
  const request = (signal = new AbortController().signal) => ({ signal }) as unknown as ChatRequest;
  assert.ok(backend.chat !== undefined);
  return { log, chat: backend.chat, request };
}

describe('engine failure lines', () => {
  it('names the engine by model, kind, host and upstream model: no credentials, path or query of its address', async () => {
    const { log, chat, request } = failingChat(() => new TypeError('a bug in the backend'));
    await assert.rejects(chat.generate(request()), /a bug in the backend/);
    assert.equal(log.lines.length, 1);
    const [line] = log.lines;
    assert.equal(line?.level, 50);
    assert.deepEqual(
      [line?.['model'], line?.['backend'], line?.['engine_host'], line?.['upstream_model'], line?.['capability']],
      ['glm-4.7', 'openai-compatible', 'engine.internal:8443', 'zai-org/GLM', 'chat'],
    );
    const error = line?.['error'] as { type: string; message: string; stack: string };
    assert.equal(error.type, 'TypeError');
    assert.match(error.stack, /engine-failure-log\.test\.ts/, 'an unexpected error keeps its stack');
    for (const secret of ['pass', 'sk-1', '/v1']) assert.ok(!log.text().includes(secret), secret);
  });

  it('an engine that refuses the request itself is a warning; a stream failure is logged like a call', async () => {
    const { log, chat, request } = failingChat(() => new ApiError('1210', 'the engine refused the parameters'));
    await assert.rejects(chat.generate(request()));
    await assert.rejects(async () => {
      for await (const part of chat.stream(request())) assert.ok(part);
    });
    assert.deepEqual(
      log.lines.map((line) => [line.level, (line['error'] as { code: string }).code]),
      [
        [40, '1210'],
        [40, '1210'],
      ],
    );
  });

  it('a call its caller aborted is not an engine failure', async () => {
    const { log, chat, request } = failingChat(() => new Error('aborted'));
    const controller = new AbortController();
    controller.abort(new Error('the client closed the connection'));
    await assert.rejects(chat.generate(request(controller.signal)));
    assert.deepEqual(log.lines, []);
  });

  it('the error handler does not log an engine failure again as an unhandled error', async () => {
    const { chat, request } = failingChat(() => new TypeError('a bug in the backend'));
    const log = captureLog('info');
    const test = await startTestPlatform({ logger: log.logger });
    try {
      // The failure's own line went to the backend's logger; the app's log must add none.
      test.app.post('/engine-bug', { config: { public: true }, schema: { response: { '5xx': ErrorBody } } }, async () => {
        await chat.generate(request());
      });
      const response = await test.app.inject({ method: 'POST', url: '/engine-bug', payload: {} });
      assert.equal(response.statusCode, 500);
      const line = await log.waitFor((entry) => entry.msg === 'request completed');
      assert.equal(line['code'], '500');
      assert.deepEqual(
        log.lines.filter((entry) => entry.level >= 40),
        [],
      );
    } finally {
      await test.close();
    }
  });
});
