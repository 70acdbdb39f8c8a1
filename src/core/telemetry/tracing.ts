import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { asApiError, EngineFailure } from '../errors/engine-failure.ts';

/**
 * The platform's tracer while tracing is on (src/platform/telemetry starts the SDK and sets it),
 * else undefined. Every span site asks first and does no span work at all when it is undefined:
 * tracing that is off costs one check per site.
 */
let tracer: Tracer | undefined;

export function platformTracer(): Tracer | undefined {
  return tracer;
}

export function setPlatformTracer(next: Tracer | undefined): void {
  tracer = next;
}

/** Where a span sits in a trace, as OpenTelemetry names it. */
export type TraceSpanKind = 'internal' | 'client' | 'producer' | 'consumer';

const spanKinds: Readonly<Record<TraceSpanKind, SpanKind>> = {
  internal: SpanKind.INTERNAL,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

/**
 * Runs `work` inside a child span of the active context (the request's, the task's), ended when
 * its promise settles; a rejection marks the span failed with the error's code or name. Without
 * tracing, `work` runs alone.
 */
export function inSpan<Result>(
  name: string,
  work: (span: Span | undefined) => Promise<Result>,
  attributes?: Attributes,
  kind: TraceSpanKind = 'internal',
): Promise<Result> {
  if (tracer === undefined) return work(undefined);
  return tracer.startActiveSpan(name, { kind: spanKinds[kind], ...(attributes === undefined ? {} : { attributes }) }, (span) =>
    work(span).then(
      (result) => {
        span.end();
        return result;
      },
      (error: unknown) => {
        failSpan(span, error);
        span.end();
        throw error;
      },
    ),
  );
}

/**
 * Marks `span` failed: `error.type` is an engine failure's kind, else the platform error code,
 * else the error's class; `model_platform.error_code` is the code a client is answered with.
 */
export function failSpan(span: Span, error: unknown): void {
  const code = asApiError(error)?.code;
  const type = error instanceof EngineFailure ? error.kind : (code ?? errorClass(error));
  span.setAttribute('error.type', type);
  if (code !== undefined) span.setAttribute('model_platform.error_code', code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/** The ids a log line carries to find its trace: those of the span active in `from` (the current context by default). */
export function traceLogFields(from: Context = context.active()): { trace_id: string; span_id: string } | undefined {
  const spanContext = trace.getSpanContext(from);
  if (spanContext === undefined || !trace.isSpanContextValid(spanContext)) return undefined;
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

function errorClass(error: unknown): string {
  if (error instanceof Error && /^[A-Za-z]{1,40}$/.test(error.name)) return error.name;
  return 'unknown';
}
