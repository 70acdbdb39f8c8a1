import { mutateForm, validForm, type FormCase } from './form-mutations.ts';
import { mutateBody } from './json-mutations.ts';
import { encodeMultipart } from './multipart-body.ts';
import type { FuzzOperation, OperationParameter } from './openapi-operations.ts';
import { hostileValue, serializeJson, validValue, type ValueHints } from './schema-values.ts';
import type { SeededRandom } from './seeded-random.ts';

/** One request of the fuzzer, as app.inject takes it, with the words that say what was broken. */
export interface FuzzRequest {
  readonly label: string;
  readonly method: FuzzOperation['method'];
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly payload?: Buffer | string;
}

/** What the fuzzer knows about the platform under test, per operation. */
export interface OperationContext {
  readonly hints: ValueHints;
  readonly authorization: string;
  /** The file parts a multipart operation may send when it is valid (well-formed and malformed files). */
  readonly files: readonly { readonly bytes: Uint8Array; readonly name: string }[];
}

const hostilePathValues = [
  '',
  'x'.repeat(2000),
  '%00',
  '..',
  '%2e%2e%2f%2e%2e',
  '%E0%A4%A',
  '%ZZ',
  '__proto__',
  'constructor',
  '%F0%9F%99%82',
  '-1',
  '1e9',
  ';',
  '*',
  '%0d%0aX-Injected:%201',
];
const hostileQueryPairs = [
  '__proto__[polluted]=1',
  'constructor[prototype][polluted]=1',
  '__proto__=1',
  'a[b][c][d][e][f][g]=1',
  `${'x'.repeat(3000)}=1`,
  '=',
  '&&&',
  'limit=1&limit=2',
  'order[]=asc',
  'purpose=%00',
  'limit=%ZZ',
];
const oddContentTypes = [
  'text/plain',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/xml',
  'application/json;;;',
  'APPLICATION/JSON',
  '*/*',
];
const oddAuthorizations = [
  '',
  'Bearer ',
  'Bearer x.y',
  'Bearer a.b.c',
  'Basic dXNlcjpwYXNz',
  'Bearer eyJhbGciOiJub25lIn0.eyJhcGlfa2V5IjoieCJ9.',
  `Bearer ${'k'.repeat(4000)}.${'s'.repeat(16)}`,
];
/** Bytes that are not UTF-8: a lone continuation byte, 0xff, a UTF-16 surrogate encoded, an overlong slash. */
const invalidUtf8 = Buffer.from([0xc3, 0x28, 0xff, 0xed, 0xa0, 0x80, 0xc0, 0xaf]);

/** Percent-encodes the UTF-8 bytes (a lone surrogate, which encodeURIComponent refuses, becomes EF BF BD). */
function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) => (/[A-Za-z0-9._~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
}

function parameterValue(parameter: OperationParameter, random: SeededRandom, hints: ValueHints): string {
  const value = validValue(parameter.schema, random, hints, parameter.name);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function buildPath(operation: FuzzOperation, values: ReadonlyMap<string, string>): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => values.get(name) ?? 'x');
}

/**
 * One case for the operation: a valid request or one with a single hostile change in the body
 * (about half of the cases of an operation with a body), a path parameter, the query string, or
 * the headers (content type, authorization), or bytes that are not UTF-8.
 */
export function operationCase(operation: FuzzOperation, context: OperationContext, random: SeededRandom, allowHuge: boolean): FuzzRequest {
  const pathValues = new Map(operation.pathParameters.map((parameter) => [parameter.name, percentEncode(parameterValue(parameter, random, context.hints))]));
  const query = operation.queryParameters
    .filter(() => random.chance(0.5))
    .map((parameter) => `${parameter.name}=${percentEncode(parameterValue(parameter, random, context.hints))}`);
  const headers: Record<string, string> = { authorization: context.authorization };
  let label = 'valid';
  let payload: Buffer | string | undefined;
  let contentType: string | undefined;

  if (operation.body?.mediaType === 'application/json') {
    const valid = validValue(operation.body.schema, random, context.hints);
    payload = serializeJson(valid);
    contentType = 'application/json';
    if (random.chance(0.55)) {
      const mutation = mutateBody(valid, operation.body.schema, random, allowHuge);
      label = `body: ${mutation.label}`;
      payload = serializeJson(mutation.value);
    }
  } else if (operation.body?.mediaType === 'multipart/form-data') {
    const file = random.pick(context.files);
    let form: FormCase = { label: 'valid', parts: validForm(operation.body.schema, random, context.hints, file.bytes, file.name), closing: true };
    if (random.chance(0.55)) form = mutateForm(form.parts, operation.body.schema, random, allowHuge);
    const encoded = encodeMultipart(form.parts, { closing: form.closing });
    label = form.label === 'valid' ? label : `form: ${form.label}`;
    payload = encoded.payload;
    contentType = encoded.contentType;
  }

  // When the body is still valid, one other change, chosen among those that apply to this operation.
  const kinds: (readonly [kind: string, weight: number])[] = [
    ['none', 2],
    ['authorization', 0.6],
    ...(operation.pathParameters.length > 0 ? ([['path', 3]] as const) : []),
    ...(operation.queryParameters.length > 0 ? ([['query', 3]] as const) : []),
    ...(payload !== undefined
      ? ([
          ['content type', 1],
          ['no content type', 0.4],
        ] as const)
      : []),
    ...(typeof payload === 'string' && payload.includes('":"') ? ([['not UTF-8', 1]] as const) : []),
  ];
  let pick = random.next() * kinds.reduce((total, [, weight]) => total + weight, 0);
  const kind = label !== 'valid' ? 'none' : (kinds.find(([, weight]) => (pick -= weight) < 0)?.[0] ?? 'none');
  if (kind === 'path') {
    const parameter = random.pick(operation.pathParameters);
    const value = random.pick(hostilePathValues);
    pathValues.set(parameter.name, value);
    label = `path ${parameter.name} = ${JSON.stringify(value.slice(0, 40))}`;
  } else if (kind === 'query') {
    if (random.chance(0.5)) {
      const parameter = random.pick(operation.queryParameters);
      const hostile = hostileValue(parameter.schema, random, false);
      const text = typeof hostile.value === 'string' ? hostile.value : serializeJson(hostile.value);
      query.push(`${parameter.name}=${percentEncode(text)}`);
      label = `query ${parameter.name} = ${hostile.label}`;
    } else {
      const pair = random.pick(hostileQueryPairs);
      query.push(pair);
      label = `query ${JSON.stringify(pair.slice(0, 40))}`;
    }
  } else if (kind === 'content type') {
    contentType = random.pick(oddContentTypes);
    label = `content type ${JSON.stringify(contentType)}`;
  } else if (kind === 'no content type') {
    contentType = undefined;
    label = 'no content type';
  } else if (kind === 'authorization') {
    headers['authorization'] = random.pick(oddAuthorizations);
    label = `authorization ${JSON.stringify(headers['authorization'].slice(0, 40))}`;
  } else if (kind === 'not UTF-8' && typeof payload === 'string') {
    const at = payload.indexOf('":"') + 3;
    payload = Buffer.concat([Buffer.from(payload.slice(0, at)), invalidUtf8, Buffer.from(payload.slice(at))]);
    label = 'bytes that are not UTF-8 inside a JSON string';
  }
  if (contentType !== undefined) headers['content-type'] = contentType;
  const search = query.length > 0 ? `?${query.join('&')}` : '';
  return { label, method: operation.method, url: `${buildPath(operation, pathValues)}${search}`, headers, ...(payload === undefined ? {} : { payload }) };
}
