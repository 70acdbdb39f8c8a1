import { AjvCompiler, type ErrorObject } from '@fastify/ajv-compiler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './app-types.ts';
import { routeOf } from './route-of.ts';

/** One answer that does not match what its route declares. */
export interface ResponseMismatch {
  /** `METHOD url-pattern`, e.g. `POST /paas/v4/chat/completions`. */
  readonly route: string;
  readonly statusCode: number;
  /** The JSON body, or one `data:` event of a text/event-stream answer. */
  readonly part: 'body' | 'stream event';
  /** What is wrong, in Ajv's words (or why nothing could be checked). */
  readonly problem: string;
  /** The start of what was sent. */
  readonly excerpt: string;
}

export type ResponseMismatchReporter = (mismatch: ResponseMismatch) => void;

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** Longest piece of a mismatching answer kept in a report. */
const excerptLength = 600;

/**
 * Checks every JSON answer against the response schema its route declares for that status, and
 * every `data:` event of a streamed answer against the route's `config.streamEvent` (or the error
 * body, for a failure sent in band). Answers are serialized by `JSON.stringify`, so without this
 * the schemas would document a contract nothing holds the code to. Installed only where asked
 * (the test platforms): production pays nothing. Mismatches are reported, never changed or hidden.
 * `errorBodySchema` is the platform's error body, which any failure sent in band must match.
 */
export function installResponseValidation(app: App, report: ResponseMismatchReporter, errorBodySchema: object): void {
  // Fastify's own Ajv set-up, with nothing that would alter the data it checks.
  const compile = AjvCompiler()({}, { customOptions: { allErrors: true, coerceTypes: false, useDefaults: false, removeAdditional: false } });
  const validators = new WeakMap<object, Validator>();
  const validatorOf = (schema: object): Validator => {
    let validator = validators.get(schema);
    if (validator === undefined) {
      validator = compile({ schema, method: '', url: '', httpPart: 'body' }) as Validator;
      validators.set(schema, validator);
    }
    return validator;
  };
  const errorBody = validatorOf(errorBodySchema);

  app.addHook('onSend', async (request, reply, payload) => {
    const mismatch = checkBody(request, reply, payload, validatorOf);
    if (mismatch !== undefined) report(mismatch);
    return payload;
  });

  app.addHook('onRequest', async (request, reply) => {
    const streamEvent = routeOf(request).config.streamEvent;
    if (streamEvent !== undefined) watchStreamEvents(request, reply, validatorOf(streamEvent), errorBody, report);
  });
}

function checkBody(request: FastifyRequest, reply: FastifyReply, payload: unknown, validatorOf: (schema: object) => Validator): ResponseMismatch | undefined {
  const contentType = String(reply.getHeader('content-type') ?? '');
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType)) return undefined;
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined;
  const text = payload.toString();
  if (text === '') return undefined;
  const options = routeOf(request);
  const mismatch = (problem: string): ResponseMismatch => ({
    route: `${request.method} ${options.url ?? request.url}`,
    statusCode: reply.statusCode,
    part: 'body',
    problem,
    excerpt: text.slice(0, excerptLength),
  });
  const responses = options.schema?.response as Record<string, unknown> | undefined;
  if (responses === undefined) {
    // Hidden routes (health, metrics, the OpenAPI document) are not part of the documented API.
    return options.schema?.hide === true || options.url === undefined ? undefined : mismatch('the route declares no response schema');
  }
  const schema = schemaFor(responses, reply.statusCode, contentType);
  if (schema === undefined) return mismatch(`the route declares no response schema for status ${reply.statusCode} (${contentType})`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return mismatch('the body is not JSON');
  }
  const validator = validatorOf(schema);
  return validator(body) ? undefined : mismatch(describe(validator));
}

/** The schema Fastify would pick: the exact status, else `4xx`-style, else `default`; by media type where the route lists several. */
function schemaFor(responses: Record<string, unknown>, statusCode: number, contentType: string): object | undefined {
  const entry = responses[String(statusCode)] ?? responses[`${String(statusCode).charAt(0)}xx`] ?? responses['default'];
  if (typeof entry !== 'object' || entry === null) return undefined;
  if (!('content' in entry) || typeof entry.content !== 'object' || entry.content === null) return entry;
  const byMediaType = entry.content as Record<string, { schema?: object } | undefined>;
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return (Object.hasOwn(byMediaType, mediaType) ? byMediaType[mediaType] : byMediaType['*/*'])?.schema;
}

/**
 * Reads what the SSE writer writes to the socket: each event must be exactly one `data:` line,
 * holding `[DONE]`, the route's event or the platform error body.
 */
function watchStreamEvents(request: FastifyRequest, reply: FastifyReply, event: Validator, errorBody: Validator, report: ResponseMismatchReporter): void {
  const raw = reply.raw;
  const write = raw.write;
  let pending = '';
  const route = `${request.method} ${routeOf(request).url ?? request.url}`;
  const check = (text: string): void => {
    const mismatch = (problem: string) => report({ route, statusCode: raw.statusCode, part: 'stream event', problem, excerpt: text.slice(0, excerptLength) });
    if (!text.startsWith('data: ') || text.includes('\n')) return mismatch('an event is not exactly one `data:` line');
    const data = text.slice('data: '.length);
    if (data === '[DONE]') return;
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      return mismatch('the event data is not JSON');
    }
    if (event(value) || errorBody(value)) return;
    mismatch(describe(event));
  };
  raw.write = function (this: typeof raw, chunk: unknown, ...rest: unknown[]) {
    // Only the hijacked event stream: a JSON answer of the same route leaves through reply.send.
    if (reply.sent && (typeof chunk === 'string' || Buffer.isBuffer(chunk))) {
      pending += chunk.toString();
      for (let end = pending.indexOf('\n\n'); end !== -1; end = pending.indexOf('\n\n')) {
        check(pending.slice(0, end));
        pending = pending.slice(end + 2);
      }
    }
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof raw.write;
}

function describe(validator: Validator): string {
  return (validator.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`).join('; ');
}
