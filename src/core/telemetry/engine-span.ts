import { context, SpanKind, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { Capability } from '../models/capability.ts';
import { failSpan, platformTracer } from './tracing.ts';

/** What names the engine a call goes to, on its span. */
export interface EngineSpanTarget {
  readonly model: string;
  /** The deployment that serves the call (its name, else the engine's host). */
  readonly deployment?: string | undefined;
  /** The backend kind (`openai-compatible`, `llama-cpp`…). */
  readonly backend?: string | undefined;
}

/** One engine call's span and the context its own work (the engine's HTTP request) runs in. */
export interface EngineSpan {
  readonly span: Span;
  readonly context: Context;
}

/** GenAI semantic conventions name chat calls `chat`; the other capabilities keep the platform's name. */
const operationNames: Partial<Record<Capability, string>> = { chat: 'chat' };

/**
 * Starts the span of one engine call under the active context, named `<operation> <model>` as the
 * GenAI conventions say, or undefined when tracing is off. The engine's own HTTP request (undici's
 * instrumentation) becomes its child when it runs in `context`.
 */
export function startEngineSpan(capability: Capability, target: EngineSpanTarget): EngineSpan | undefined {
  const tracer = platformTracer();
  if (tracer === undefined) return undefined;
  const operation = operationNames[capability] ?? capability;
  const attributes: Attributes = {
    'gen_ai.operation.name': operation,
    'gen_ai.request.model': target.model,
    'model_platform.model': target.model,
    'model_platform.capability': capability,
  };
  if (target.deployment !== undefined) attributes['model_platform.deployment'] = target.deployment;
  if (target.backend !== undefined) attributes['model_platform.backend'] = target.backend;
  const parent = context.active();
  const span = tracer.startSpan(`${operation} ${target.model}`, { kind: SpanKind.CLIENT, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/**
 * Ends an engine call's span: failed with the error's code, or marked aborted when the caller
 * gave up (the client left, a task's deadline passed), which is not the engine's failure.
 */
export function endEngineSpan(engineSpan: EngineSpan | undefined, signal: AbortSignal, error?: { readonly thrown: unknown }): void {
  if (engineSpan === undefined) return;
  const { span } = engineSpan;
  if (signal.aborted) span.setAttribute('model_platform.aborted', true);
  else if (error !== undefined) failSpan(span, error.thrown);
  span.end();
}

/** Runs `call` in the engine span's context, so the requests it makes are the span's children. */
export function inEngineSpan<Result>(engineSpan: EngineSpan | undefined, call: () => Result): Result {
  return engineSpan === undefined ? call() : context.with(engineSpan.context, call);
}

/**
 * The parts of a stream, each pulled in the engine span's context: a generator's body runs in the
 * context of whoever asks for the next part, which is the caller's, not the span's. Without a span
 * the stream is returned as it is, with no extra layer per part.
 */
export function partsInEngineSpan<Part>(engineSpan: EngineSpan | undefined, parts: () => AsyncIterable<Part>): AsyncIterable<Part> {
  return engineSpan === undefined ? parts() : partsInContext(engineSpan, parts);
}

async function* partsInContext<Part>(engineSpan: EngineSpan, parts: () => AsyncIterable<Part>): AsyncGenerator<Part> {
  const iterator = context.with(engineSpan.context, () => parts()[Symbol.asyncIterator]());
  let finished = false;
  try {
    for (;;) {
      const step = await context.with(engineSpan.context, () => iterator.next());
      if (step.done === true) {
        finished = true;
        return;
      }
      yield step.value;
    }
  } catch (error) {
    finished = true;
    throw error;
  } finally {
    // The consumer stopped early (the client left): the engine's stream is told, as yield* would.
    if (!finished) await context.with(engineSpan.context, () => iterator.return?.());
  }
}
