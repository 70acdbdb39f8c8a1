import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { asRecord, asString } from './wire-reading.ts';

/** An engine's message is quoted up to this many characters: enough to say what is wrong, never a whole body. */
const longestMessage = 300;

/** How an engine says the prompt does not fit: vLLM, SGLang, llama.cpp server, Ollama, TGI. */
const contextLengthPattern =
  /context length|context size|context window|maximum context|exceeds? the (available )?context|too many tokens|prompt is too long|input is too long|longer than the model/i;

/**
 * What it means when an OpenAI-compatible engine answers a call with an error status. The
 * engine's own message is kept (it says what is wrong with the input); the platform key's
 * problems with the engine (401/403/404) are a configuration matter, not the client's fault.
 */
export function engineHttpError(model: string, status: number, bodyText: string): EngineFailure {
  const engineMessage = engineErrorMessage(bodyText);
  const message = engineMessage || `HTTP ${status} without a message`;
  const said = `The engine for model '${model}' answered HTTP ${status}: ${message}`;
  const details = { engineStatus: status, engineMessage };
  const fail = (kind: EngineFailure['kind'], text: string) => new EngineFailure(kind, model, text, details);
  if (status === 429) return fail('overloaded', `${said}. Try again later.`);
  if (contextLengthPattern.test(message)) return fail('context-too-long', said);
  if (status === 401 || status === 403) {
    return fail('misconfigured', `${said}. The server's credentials for this engine (apiKey in the model's config) were refused.`);
  }
  if (status === 404) return fail('misconfigured', `${said}. Check baseUrl and upstreamModel in the model's config.`);
  if (status === 502 || status === 503 || status === 504) return fail('unavailable', `${said}. Try again later.`);
  if (status >= 400 && status < 500) return fail('rejected-input', said);
  return fail('engine-error', said);
}

/**
 * The human message inside an engine's error body: vLLM `{"object":"error","message"}`,
 * OpenAI-style `{"error":{"message"}}` (llama.cpp's server too), FastAPI `{"detail"}`,
 * `{"error":"..."}`, or a plain text body. Always one line of at most 300 characters with control
 * characters taken out: the engine's message, never its body's raw bytes.
 */
export function engineErrorMessage(bodyText: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    return shorten(bodyText.trim());
  }
  const body = asRecord(parsed);
  const error = body?.['error'];
  const detail = body?.['detail'];
  const message =
    asString(asRecord(error)?.['message']) ??
    asString(error) ??
    asString(body?.['message']) ??
    asString(detail) ??
    (detail === undefined ? undefined : JSON.stringify(detail)) ??
    // A JSON body without a message field is not quoted: its fields are not a message.
    '';
  return shorten(message);
}

function shorten(text: string): string {
  // Control characters (line breaks, escapes, NUL) would let an engine shape a log line or a terminal.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return line.length > longestMessage ? `${line.slice(0, longestMessage)}…` : line;
}
