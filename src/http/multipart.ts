import { Type, type Static, type TObject } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ApiError, invalidField } from '../core/errors/api-error.ts';
import { quoteClientValue } from '../core/errors/quote-client-value.ts';
import { createAjv, type Ajv } from '../core/json-schema/create-ajv.ts';
import { nullPrototypeRecord } from '../core/objects/null-prototype-record.ts';
import { adoptClientIds } from './request-hooks.ts';
import { watchClosingDelimiter } from './multipart-closing-delimiter.ts';
import { violationToApiError } from './validation-error.ts';

export const multipartContentType = 'multipart/form-data';

/**
 * Options for registering @fastify/multipart. Size limits are checked by `readMultipartForm`
 * (from the stream's `truncated` flag), which names the field and the limit; the plugin's own
 * 413 error would name neither.
 */
export const multipartPluginOptions = { throwFileSizeLimit: false } as const;

/** Busboy's own default for a text field; endpoints that take large text fields raise it. */
const defaultMaxFieldBytes = 1024 * 1024;

/** The binary part of a multipart body, for the OpenAPI document. */
export function MultipartFile(description: string) {
  return Type.String({ format: 'binary', description });
}

/** What the client said about an uploaded file. */
interface MultipartFileInfo {
  readonly filename: string;
  readonly mimetype: string;
}

export interface ReceivedFile<Content> extends MultipartFileInfo {
  /** Bytes read from the part (never more than the limit). */
  readonly bytes: number;
  /** What `receiveFile` made of the stream. */
  readonly content: Content;
}

export interface MultipartFormOptions<Content> {
  /** Name of the one file part the endpoint takes. */
  readonly fileField: string;
  /** Most bytes the file may have; enforced while streaming, the rest of the part is skipped. */
  readonly maxFileBytes: number;
  /** The error for a file over `maxFileBytes`, given the rule in words (default 1214 naming the field). */
  readonly fileTooLarge?: (rule: string) => ApiError;
  /** Most bytes of one text field (default 1 MiB). */
  readonly maxFieldBytes?: number;
  /**
   * Reads the file part's stream to its end (it must, or the form stalls). The stream stops
   * yielding at `maxFileBytes`; the form is then rejected and the content dropped.
   */
  readonly receiveFile: (stream: Readable, info: MultipartFileInfo) => Promise<Content>;
}

export interface MultipartForm<Fields, Content> {
  readonly fields: Fields;
  readonly file: ReceivedFile<Content> | undefined;
}

/** Keeps the file in memory: only for endpoints whose limit is small enough to hold (audio). */
export async function collectFile(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Reads the file to its end and keeps nothing. */
async function discardFile(stream: Readable): Promise<void> {
  // Busboy moves on to the next part only once this one is read.
  stream.resume();
  await finished(stream);
}

/**
 * Route options for an endpoint whose body is multipart/form-data. The body is read in the handler
 * by `readMultipartForm` (it is still unread while Fastify validates, so Fastify's body validation
 * is switched off), and any other content type is refused before a byte of the body is parsed.
 * The route's `schema.body` and `consumes` only document the form.
 */
export const multipartRouteOptions = {
  preParsing: async (request: FastifyRequest, _reply: unknown, payload: unknown) => {
    if (!isMultipartContentType(request.headers['content-type'])) throw notMultipart(request.headers['content-type']);
    return payload;
  },
  validatorCompiler: (({ schema, httpPart }) => {
    if (httpPart === 'body') return () => true;
    return compileCoercing(schema as object);
  }) satisfies FastifySchemaCompiler<unknown>,
};

/**
 * A route-level validator compiler for query strings and path parameters: their values are always
 * text, so they are validated with the same coercion as form fields ("20" passes an integer rule,
 * "ten" does not), unlike JSON bodies, whose types are checked as sent.
 */
export const coercingValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema }) => compileCoercing(schema as object);

/**
 * Reads a multipart form: collects the text fields, hands the file part to `receiveFile` under the
 * size limit, then validates the fields against `schema`. Multipart values are text, so the
 * validation coerces ("true" → true, "5" → 5). A field sent more than once becomes an array;
 * `name[]` collects into the array `name` and `name[key]` into the object `name` (the Python SDK
 * encodes lists and dicts that way, docs/wire.md §1.4); a single value for an array field that
 * holds a JSON array is parsed. The values are kept in null-prototype objects, and names that use
 * `__proto__`, `constructor` or `prototype` are refused (1210). File parts under other names are read and dropped. Failures are
 * 1213/1214 naming the field, after the whole body has been read, so the client sees the answer
 * rather than a broken pipe; nothing received is kept.
 */
export async function readMultipartForm<Schema extends TObject, Content>(
  request: FastifyRequest,
  reply: FastifyReply,
  schema: Schema,
  options: MultipartFormOptions<Content>,
): Promise<MultipartForm<Static<Schema>, Content>> {
  if (!request.isMultipart()) throw notMultipart(request.headers['content-type']);
  const maxFieldBytes = options.maxFieldBytes ?? defaultMaxFieldBytes;
  // Bounds the text held in memory: one field at its largest plus room for the small ones.
  const maxTextBytes = maxFieldBytes + defaultMaxFieldBytes;
  let textBytes = 0;
  // Field names are the caller's: they become keys of null-prototype objects only (formFields).
  const raw = formFields();
  let file: ReceivedFile<Content> | undefined;
  let firstError: ApiError | undefined;
  const fail = (error: ApiError) => {
    firstError ??= error;
  };

  const closing = watchClosingDelimiter(request.raw, request.headers['content-type']);
  try {
    const parts = request.parts({
      limits: { fileSize: options.maxFileBytes, fieldSize: maxFieldBytes, files: 10, fields: 1000, parts: 1000 },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        // A body that ends or breaks inside the part fails the part's stream: the form is then
        // malformed (1210), whatever the reader of the stream made of it.
        part.file.on('error', (error) => fail(multipartError(error)));
        const wanted = part.fieldname === options.fileField && file === undefined && firstError === undefined;
        if (!wanted) {
          if (part.fieldname === options.fileField && file !== undefined) fail(invalidField(options.fileField, 'must be sent only once'));
          await discardFile(part.file);
          continue;
        }
        // A part typed as a file but without a filename has none at all (the parser gives undefined).
        const filename = part.filename ?? '';
        const content = await options.receiveFile(part.file, { filename, mimetype: part.mimetype });
        if (part.file.truncated) {
          const rule = `must be at most ${formatBytes(options.maxFileBytes)}`;
          fail(options.fileTooLarge?.(rule) ?? invalidField(options.fileField, rule));
          continue;
        }
        if (filename === '') {
          // A browser form with no file chosen sends an empty part with an empty name.
          if (part.file.bytesRead > 0) fail(invalidField(options.fileField, 'must have a filename'));
          continue;
        }
        file = { filename, mimetype: part.mimetype, bytes: part.file.bytesRead, content };
      } else {
        if (part.fieldname === options.fileField) {
          fail(invalidField(options.fileField, 'must be sent as a file part (with a filename)'));
        } else if (part.valueTruncated) {
          fail(invalidField(fieldName(part.fieldname), `must be at most ${maxFieldBytes} bytes`));
        } else {
          textBytes += typeof part.value === 'string' ? part.value.length : JSON.stringify(part.value).length;
          const refused = reservedNamePart(part.fieldname);
          if (textBytes > maxTextBytes) fail(new ApiError('1210', `The form's text fields exceed ${maxTextBytes} bytes in all.`));
          else if (refused !== undefined) fail(new ApiError('1210', `The form field '${part.fieldname}' uses the reserved name '${refused}'.`));
          else addField(raw, part.fieldname, part.value);
        }
      }
    }
  } catch (error) {
    throw multipartError(error);
  }
  if (!closing.seen()) throw new ApiError('1210', 'The multipart body ended before its closing boundary: the form is incomplete.');
  if (firstError !== undefined) throw firstError;

  parseJsonArrays(schema, raw);
  const validate = compileCoercing(schema);
  if (!validate(raw)) throw violationToApiError(validate.errors ?? []);
  const fields = raw as Static<Schema>;
  adoptClientIds(request, reply, raw, schema);
  return { fields, file };
}

function isMultipartContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.toLowerCase().trimStart().startsWith(multipartContentType);
}

function notMultipart(contentType: string | undefined): ApiError {
  const sent = contentType === undefined ? 'no Content-Type' : `Content-Type '${quoteClientValue(contentType)}'`;
  return new ApiError('1210', `This endpoint takes a ${multipartContentType} body, not ${sent}.`);
}

/** Errors of the multipart parser itself (malformed body, too many parts) are 1210. */
function multipartError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return new ApiError('1210', 'The multipart body has too many parts.');
  }
  if (code === 'FST_INVALID_JSON_FIELD_ERROR') {
    return new ApiError('1210', 'A form field sent as application/json does not hold valid JSON.');
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError('1210', `The multipart body could not be parsed: ${message}.`);
}

/** `name`, `name[]` and `name[key]` (one level, as the SDKs send them); deeper names stay as sent. */
const bracketedName = /^([^[\]]+)\[([^[\]]*)\]$/;

function fieldName(name: string): string {
  return bracketedName.exec(name)?.[1] ?? name;
}

/**
 * Names that address an object's prototype rather than a field. None is a field of any form; on a
 * plain object `__proto__[x]` would write `x` into every object of the process, so they are
 * refused (1210) wherever they appear in a name, even though the containers have no prototype.
 */
const reservedNames: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** The reserved name a field's name uses (`__proto__`, `a[constructor]`, `prototype[]`), if any. */
function reservedNamePart(name: string): string | undefined {
  const match = bracketedName.exec(name);
  const parts = match === null ? [name] : [match[1] ?? '', match[2] ?? ''];
  return parts.find((part) => reservedNames.has(part));
}

/** The form's values by field name: a null-prototype object, so no name can reach a prototype. */
type FormFields = Record<string, unknown>;

function formFields(): FormFields {
  return nullPrototypeRecord<unknown>();
}

function addField(raw: FormFields, name: string, value: unknown): void {
  const match = bracketedName.exec(name);
  if (match === null) {
    appendValue(raw, name, value, false);
    return;
  }
  const [, base = name, key = ''] = match;
  if (key === '') {
    appendValue(raw, base, value, true);
    return;
  }
  const existing = Object.hasOwn(raw, base) ? raw[base] : undefined;
  const container = isRecord(existing) ? existing : formFields();
  raw[base] = container;
  appendValue(container, key, value, false);
}

function appendValue(target: FormFields, key: string, value: unknown, alwaysArray: boolean): void {
  const existing = Object.hasOwn(target, key) ? target[key] : undefined;
  if (existing === undefined) target[key] = alwaysArray ? [value] : value;
  else if (Array.isArray(existing)) existing.push(value);
  else target[key] = [existing, value];
}

/** A lone value for an array field may be the whole list as JSON (`hotwords='["a","b"]'`). */
function parseJsonArrays(schema: TObject, raw: FormFields): void {
  for (const [key, value] of Object.entries(raw)) {
    const property = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    if (typeof value !== 'string' || property?.['type'] !== 'array' || !value.trimStart().startsWith('[')) continue;
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed)) raw[key] = parsed;
    } catch {
      // not JSON: validated as the single item it is
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** "25 MB (26214400 bytes)": the platform states limits in MB, meaning MiB. */
function formatBytes(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024);
  return Number.isInteger(mebibytes) ? `${mebibytes} MB (${bytes} bytes)` : `${bytes} bytes`;
}

/** Multipart values arrive as text: validation coerces ('array' also lets one value stand for a one-item list). */
const coercingAjv = createAjv('array');

const compiledValidators = new WeakMap<object, ReturnType<Ajv['compile']>>();

function compileCoercing(schema: object): ReturnType<Ajv['compile']> {
  let validate = compiledValidators.get(schema);
  if (validate === undefined) {
    validate = coercingAjv.compile(schema);
    compiledValidators.set(schema, validate);
  }
  return validate;
}
