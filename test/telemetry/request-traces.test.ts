import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ConfigError } from '../../src/core/config/config-error.ts';
import { startTelemetry, type Telemetry } from '../../src/platform/telemetry/start-telemetry.ts';
import { captureLog, type CapturedLog } from '../helpers/captured-log.ts';
import { jsonReply, sseReply, startFakeOpenAiServer, vllmCompletion, vllmReasoningStream, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { waitForTask } from '../helpers/media-test-platform.ts';
import { encodeForm } from '../helpers/multipart-form.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.ts';

const route = '/paas/v4/chat/completions';
const serverKind = 2;
const clientKind = 3;
const producerKind = 4;
const consumerKind = 5;

/** The spans of one trace, found by the request span's request_id. */
function traceOf(spans: readonly ReceivedSpan[], requestId: string): ReceivedSpan[] {
  const requestSpan = spans.find((span) => span.attributes.get('model_platform.request_id') === requestId);
  return requestSpan === undefined ? [] : spans.filter((span) => span.traceId === requestSpan.traceId);
}

describe('OpenTelemetry traces of chat calls (OTLP/JSON to an in-process receiver)', () => {
  let receiver: OtlpReceiver;
  let telemetry: Telemetry | undefined;
  let log: CapturedLog;
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  let origin: string;

  before(async () => {
    receiver = await startOtlpReceiver();
    // The SDK and the exporters read the standard variables from the process environment.
    Object.assign(process.env, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
    });
    log = captureLog('info');
    telemetry = await startTelemetry(process.env, log.logger);
    assert.ok(telemetry, 'an endpoint is set: tracing starts');
    // Made after tracing started, as `serve` makes it: its lines carry the trace ids.
    log = captureLog('info');
    engine = await startFakeOpenAiServer();
    test = await startTestPlatform({
      logger: log.logger,
      config: { models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'zai-org/GLM' } } },
    });
    test.platform.startWorkers();
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
  });
  beforeEach(() => engine.reset());
  after(async () => {
    await test.close();
    await engine.close();
    await telemetry?.shutdown();
    await receiver.close();
  });

  const chat = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${origin}${route}`, {
      method: 'POST',
      headers: { authorization: test.authorization, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'glm-4.7', messages: [{ role: 'user', content: 'hello' }], ...body }),
    });

  it('a sync call is one trace: the request span, the engine span as its child with model and deployment, the engine HTTP request under it', async () => {
    engine.enqueue(jsonReply(vllmCompletion({ content: 'hi' })));
    const response = await chat({ request_id: 'trace-sync-0001' });
    assert.equal(response.status, 200, await response.text());

    const spans = traceOf(await receiver.waitFor((received) => traceOf(received, 'trace-sync-0001').length >= 3), 'trace-sync-0001');
    const requestSpan = spans.find((span) => span.kind === serverKind);
    assert.ok(requestSpan);
    assert.equal(requestSpan.name, `POST ${route}`);
    assert.equal(requestSpan.parentSpanId, undefined, 'a request without traceparent starts its own trace');
    assert.equal(requestSpan.attributes.get('http.route'), route);
    assert.equal(requestSpan.attributes.get('http.response.status_code'), 200);
    assert.equal(requestSpan.attributes.get('gen_ai.request.model'), 'glm-4.7');
    assert.equal(requestSpan.attributes.get('model_platform.key_id'), test.key.split('.')[0]);
    assert.equal(requestSpan.serviceName, 'model-platform', 'the default service name');
    assert.ok(
      Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('sdk-trace-base')),
      'the SDK is loaded (tracing-off.test.ts asserts the opposite the same way)',
    );

    const engineSpan = spans.find((span) => span.name === 'chat glm-4.7');
    assert.ok(engineSpan, JSON.stringify(spans.map((span) => span.name)));
    assert.equal(engineSpan.parentSpanId, requestSpan.spanId, 'the engine span is a child of the request span');
    assert.equal(engineSpan.attributes.get('gen_ai.request.model'), 'glm-4.7');
    assert.equal(engineSpan.attributes.get('model_platform.model'), 'glm-4.7');
    assert.equal(engineSpan.attributes.get('model_platform.deployment'), 'glm-4.7#1');
    assert.equal(engineSpan.attributes.get('model_platform.backend'), 'openai-compatible');
    assert.equal(engineSpan.statusCode, 0);

    const httpSpan = spans.find((span) => span.kind === clientKind && span.parentSpanId === engineSpan.spanId && span.name.startsWith('POST'));
    assert.ok(httpSpan, 'undici instrumentation: the engine request is a child of the engine span');
    assert.equal(httpSpan.attributes.get('http.response.status_code'), 200);
    // The engine was told the trace it takes part in.
    assert.match(String(engine.requests[0]?.headers['traceparent']), new RegExp(`^00-${requestSpan.traceId}-[0-9a-f]{16}-01$`));

    const line = await log.waitFor((entry) => entry['request_id'] === 'trace-sync-0001' && entry.msg === 'request completed');
    assert.equal(line['trace_id'], requestSpan.traceId, 'the request log line names the trace');
    assert.equal(line['span_id'], requestSpan.spanId);
  });

  it('a streamed call is one trace too, its engine span ended with the stream', async () => {
    engine.enqueue(sseReply(vllmReasoningStream({ content: ['a', 'b'] })));
    const response = await chat({ request_id: 'trace-stream-0001', stream: true });
    assert.equal(response.status, 200);
    await response.text();

    const spans = traceOf(await receiver.waitFor((received) => traceOf(received, 'trace-stream-0001').length >= 3), 'trace-stream-0001');
    const requestSpan = spans.find((span) => span.kind === serverKind);
    const engineSpan = spans.find((span) => span.name === 'chat glm-4.7');
    assert.ok(requestSpan && engineSpan);
    assert.equal(engineSpan.parentSpanId, requestSpan.spanId);
    assert.ok(spans.some((span) => span.kind === clientKind && span.parentSpanId === engineSpan.spanId));
    const line = await log.waitFor((entry) => entry['request_id'] === 'trace-stream-0001' && entry.msg === 'request completed');
    assert.equal(line['trace_id'], requestSpan.traceId);
  });

  it("joins a caller's trace (W3C traceparent) and marks a failed engine call, its code on the request span", async () => {
    engine.enqueue(jsonReply({ error: { message: 'boom' } }, 500));
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await chat({ request_id: 'trace-fail-0001' }, { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` });
    assert.equal(response.status, 500);
    const body = (await response.json()) as { error: { code: string } };

    const spans = traceOf(await receiver.waitFor((received) => traceOf(received, 'trace-fail-0001').length >= 2), 'trace-fail-0001');
    const requestSpan = spans.find((span) => span.kind === serverKind);
    assert.ok(requestSpan);
    assert.equal(requestSpan.traceId, callerTrace);
    assert.equal(requestSpan.parentSpanId, '00f067aa0ba902b7');
    assert.equal(requestSpan.attributes.get('http.response.status_code'), 500);
    assert.equal(requestSpan.attributes.get('model_platform.error_code'), body.error.code);
    assert.equal(requestSpan.statusCode, 2);
    const engineSpan = spans.find((span) => span.name === 'chat glm-4.7');
    assert.ok(engineSpan);
    assert.equal(engineSpan.statusCode, 2);
    assert.equal(engineSpan.attributes.get('error.type'), 'engine-error');
    assert.equal(engineSpan.attributes.get('model_platform.error_code'), body.error.code);

    // The engine failure line is written inside the trace: the mixin names it.
    const failure = await log.waitFor((entry) => entry.msg === 'engine call failed' && entry['trace_id'] === callerTrace);
    assert.equal(failure['span_id'], engineSpan.spanId);
  });

  it("an async call's task runs in the submitting request's trace: submit span, run span as its child, the engine span under the run", async () => {
    engine.enqueue(jsonReply(vllmCompletion({ content: 'later' })));
    const submitted = await postJson(test, '/paas/v4/async/chat/completions', {
      model: 'glm-4.7',
      messages: [{ role: 'user', content: 'hello' }],
      request_id: 'trace-task-0001',
    });
    assert.equal(submitted.statusCode, 200, submitted.body);
    const answer = await waitForTask(test, (submitted.json() as { id: string }).id);
    assert.equal(answer.task_status, 'SUCCESS');

    const spans = traceOf(
      await receiver.waitFor((received) => traceOf(received, 'trace-task-0001').some((span) => span.name === 'chat glm-4.7')),
      'trace-task-0001',
    );
    const requestSpan = spans.find((span) => span.kind === serverKind && span.attributes.get('model_platform.request_id') === 'trace-task-0001');
    const submitSpan = spans.find((span) => span.name === 'task submit chat');
    const runSpan = spans.find((span) => span.name === 'task run chat');
    const engineSpan = spans.find((span) => span.name === 'chat glm-4.7');
    assert.ok(requestSpan && submitSpan && runSpan && engineSpan, JSON.stringify(spans.map((span) => span.name)));
    assert.equal(submitSpan.kind, producerKind);
    assert.equal(submitSpan.parentSpanId, requestSpan.spanId);
    assert.equal(runSpan.kind, consumerKind);
    assert.equal(runSpan.parentSpanId, submitSpan.spanId, 'the worker continues the trace the task was submitted in');
    assert.equal(runSpan.attributes.get('model_platform.task_outcome'), 'finished');
    assert.equal(engineSpan.parentSpanId, runSpan.spanId);
  });

  it('an upload writes its blob in a span of the request', async () => {
    const { payload, contentType } = await encodeForm([
      ['purpose', 'user_data'],
      ['file', Buffer.from('a,b\n'), 'terms.csv', 'text/csv'],
    ]);
    const uploaded = await test.app.inject({
      method: 'POST',
      url: '/paas/v4/files',
      headers: { authorization: test.authorization, 'content-type': contentType },
      payload,
    });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    const requestId = String(uploaded.headers['x-request-id']);
    const spans = traceOf(await receiver.waitFor((received) => traceOf(received, requestId).some((span) => span.name === 'blob put')), requestId);
    const requestSpan = spans.find((span) => span.kind === serverKind);
    const putSpan = spans.find((span) => span.name === 'blob put');
    assert.ok(requestSpan && putSpan);
    assert.equal(putSpan.parentSpanId, requestSpan.spanId);
    assert.equal(putSpan.attributes.get('model_platform.blob_store'), 'local');
    assert.equal(putSpan.attributes.get('model_platform.blob_bytes'), 4);
  });

  it('refuses an OTLP protocol it cannot export with (grpc) at start', async () => {
    await assert.rejects(startTelemetry({ ...process.env, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, log.logger), ConfigError);
  });
});
