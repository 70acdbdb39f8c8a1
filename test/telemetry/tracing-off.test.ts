import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { trace, type ProxyTracerProvider } from '@opentelemetry/api';
import { platformTracer } from '../../src/core/telemetry/tracing.ts';
import { startTelemetry, tracingRequested } from '../../src/platform/telemetry/start-telemetry.ts';
import { captureLog } from '../helpers/captured-log.ts';
import { jsonReply, startFakeOpenAiServer, vllmCompletion, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/** CommonJS modules loaded so far (ES imports of CommonJS packages land here too) whose path names an OpenTelemetry SDK package. */
function loadedSdkModules(): string[] {
  const cache = createRequire(import.meta.url).cache;
  return Object.keys(cache).filter((path) => /@opentelemetry[\\/](sdk-|exporter-|instrumentation|resources)/.test(path));
}

describe('without an OTLP endpoint, tracing is off and its SDK never loads', () => {
  const log = captureLog('info');
  let engine: FakeOpenAiServer;
  let test: TestPlatform;

  before(async () => {
    engine = await startFakeOpenAiServer();
    test = await startTestPlatform({
      logger: log.logger,
      config: { models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'zai-org/GLM' } } },
    });
  });
  after(async () => {
    await test.close();
    await engine.close();
  });

  it('starts nothing: no platform tracer, the global tracer provider is the no-op one, no SDK module loaded', async () => {
    assert.equal(await startTelemetry({ OTEL_SERVICE_NAME: 'x' }, log.logger), undefined);
    assert.equal(platformTracer(), undefined);
    const provider = trace.getTracerProvider() as ProxyTracerProvider;
    assert.equal(provider.getDelegate().constructor.name, 'NoopTracerProvider');
    assert.equal(trace.getTracer('any').startSpan('any').isRecording(), false);
    assert.deepEqual(loadedSdkModules(), []);
  });

  it('OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn it off even with an endpoint; either endpoint variable turns it on', () => {
    const endpoint = 'http://127.0.0.1:4318';
    assert.equal(tracingRequested({}), false);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }), false);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }), true);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces` }), true);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'true' }), false);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'TRUE' }), false);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'false' }), true);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: 'none' }), false);
  });

  it('a chat call is served as before: its log line has no trace ids, the engine gets no traceparent', async () => {
    engine.enqueue(jsonReply(vllmCompletion({ content: 'hi' })));
    const response = await postJson(test, '/paas/v4/chat/completions', {
      model: 'glm-4.7',
      messages: [{ role: 'user', content: 'hi' }],
      request_id: 'untraced-0001',
    });
    assert.equal(response.statusCode, 200, response.body);
    const line = await log.waitFor((entry) => entry['request_id'] === 'untraced-0001' && entry.msg === 'request completed');
    assert.equal(line['trace_id'], undefined);
    assert.equal(line['span_id'], undefined);
    assert.equal(engine.requests[0]?.headers['traceparent'], undefined);
    assert.deepEqual(loadedSdkModules(), []);
  });
});
