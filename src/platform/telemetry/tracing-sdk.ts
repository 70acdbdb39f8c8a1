import { readFileSync } from 'node:fs';
import { register } from 'node:module';
import { diag, DiagLogLevel, trace, type DiagLogger } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { ConfigError } from '../../core/config/config-error.ts';
import { setPlatformTracer } from '../../core/telemetry/tracing.ts';
import type { PlatformLogger } from '../create-logger.ts';
import type { Telemetry } from './start-telemetry.ts';

/** The service name when OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) names none. */
const defaultServiceName = 'model-platform';

/** How long the last spans may take to leave at shutdown. */
const shutdownTimeoutMs = 5_000;

/**
 * The OpenTelemetry SDK, loaded only when tracing is on (start-telemetry.ts): a Node tracer
 * provider (W3C trace context, async-local context) exporting in batches over OTLP/HTTP, and the
 * instrumentations of the engines' HTTP client (undici), PostgreSQL (pg) and Redis (ioredis:
 * limits and BullMQ). Those three make spans only inside a trace (a request's, a task's), so the
 * background polling of queues and sweepers adds no traces of its own.
 */
export async function startTracing(environment: NodeJS.ProcessEnv, logger: PlatformLogger): Promise<Telemetry> {
  const protocol = protocolOf(environment);
  // Export failures and bad settings are reported through diag: they reach the log, at warn.
  diag.setLogger(diagLogger(logger.child({ component: 'opentelemetry' })), DiagLogLevel.WARN);
  const exporter = await createExporter(protocol);
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: defaultServiceName, [ATTR_SERVICE_VERSION]: packageVersion() }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  provider.register();
  hookEsmImports(['ioredis']);
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new UndiciInstrumentation({ requireParentforSpans: true }),
      new PgInstrumentation({ requireParentSpan: true }),
      // The command name only: arguments hold keys, limits and job data, none of which a trace needs.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
  setPlatformTracer(provider.getTracer(defaultServiceName, packageVersion()));
  let stopped: Promise<void> | undefined;
  return {
    shutdown() {
      stopped ??= (async () => {
        setPlatformTracer(undefined);
        unregister();
        await withTimeout(provider.shutdown(), shutdownTimeoutMs).catch((error: unknown) => logger.warn({ err: error }, 'the last spans were not exported'));
        trace.disable();
        diag.disable();
      })();
      return stopped;
    },
  };
}

type Protocol = 'http/protobuf' | 'http/json';

/** OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf (the specification's default). */
function protocolOf(environment: NodeJS.ProcessEnv): Protocol {
  const named = (environment['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'] || environment['OTEL_EXPORTER_OTLP_PROTOCOL'] || 'http/protobuf').trim();
  if (named === 'http/protobuf' || named === 'http/json') return named;
  throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL: traces are exported over http/protobuf or http/json; '${named.slice(0, 40)}' is not supported.`);
}

/** Both exporters read the endpoint, headers, compression and timeout from the OTEL_EXPORTER_OTLP_* variables. */
async function createExporter(protocol: Protocol): Promise<SpanExporter> {
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

/**
 * Lets instrumentations patch these packages when ES modules import them: require() hooks alone
 * see only CommonJS loads (pg's files are required by pg itself; ioredis is imported by ESM code).
 * Only the named packages pass through the loader hook.
 */
function hookEsmImports(packages: string[]): void {
  if (typeof register !== 'function') return;
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: packages } });
}

/** From package.json, three folders up both from src/platform/telemetry and from the build's dist/platform/telemetry. */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return String(manifest.version);
}

function diagLogger(logger: PlatformLogger): DiagLogger {
  const write =
    (level: 'warn' | 'info' | 'debug') =>
    (message: string, ...args: unknown[]) =>
      logger[level]({ details: args.map(String).join(' ').slice(0, 1000) }, message);
  return { error: write('warn'), warn: write('warn'), info: write('info'), debug: write('debug'), verbose: write('debug') };
}

function withTimeout(work: Promise<void>, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not done after ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
    work.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
