import type { ChatMessage, ChatRequest, ContentPart, FunctionTool } from '../../core/chat/chat-types.ts';
import { assertTextOnly, textContent } from '../../core/chat/text-only.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';

/** How one configured model talks to its OpenAI-compatible engine. */
export interface OpenAiBodyOptions {
  /** The public model name, for error messages. */
  readonly modelName: string;
  /** The model name the engine serves. */
  readonly upstreamModel: string;
  /** Dotted path of the engine's thinking switch in the body, or 'none'. */
  readonly thinkingParam: string;
  /** The engine takes image, video, file and audio parts. */
  readonly vision: boolean;
}

export const defaultThinkingParam = 'chat_template_kwargs.enable_thinking';

/**
 * JSON mode as a schema that admits any object: llama.cpp's server ignores `{type: 'json_object'}`
 * with a chat template that has its own output format (GLM's), but constrains the content (after
 * the reasoning) to a `json_schema`; vLLM, SGLang and Ollama read this OpenAI form as well (vLLM
 * requires the `name`).
 */
const jsonObjectFormat = { type: 'json_schema', json_schema: { name: 'json_object', schema: { type: 'object' } } } as const;

/**
 * The chat completions body for vLLM, SGLang, llama.cpp server, Ollama or LocalAI. Only what the
 * client set is sent, so the engine's own defaults hold otherwise; the platform's output cap is
 * not sent, as an engine with a smaller context would refuse it.
 */
export function buildOpenAiChatBody(request: ChatRequest, options: OpenAiBodyOptions, stream: boolean): Record<string, unknown> {
  if (!options.vision) assertTextOnly(request.messages, options.modelName);
  const body: Record<string, unknown> = { model: options.upstreamModel, messages: toOpenAiMessages(request.messages, options.vision) };
  if (request.tools.length > 0) {
    body['tools'] = toOpenAiTools(request.tools);
    body['tool_choice'] = 'auto';
  }
  if (request.greedy) {
    body['temperature'] = 0;
  } else {
    if (request.temperature !== undefined) body['temperature'] = request.temperature;
    if (request.topP !== undefined) body['top_p'] = request.topP;
  }
  if (request.maxTokens !== undefined) body['max_tokens'] = request.maxTokens;
  if (request.stop.length > 0) body['stop'] = [...request.stop];
  if (request.responseFormat === 'json_object') body['response_format'] = jsonObjectFormat;
  if (request.seed !== undefined) body['seed'] = request.seed;
  if (options.thinkingParam !== 'none') setDottedPath(body, options.thinkingParam, request.thinking.enabled, options.modelName);
  if (request.thinking.enabled && request.thinking.effort !== undefined) body['reasoning_effort'] = request.thinking.effort;
  body['stream'] = stream;
  if (stream) body['stream_options'] = { include_usage: true };
  return body;
}

/** Messages in the OpenAI wire shape; without `withMedia`, content is sent as one string. */
export function toOpenAiMessages(messages: readonly ChatMessage[], withMedia: boolean): Record<string, unknown>[] {
  return messages.map((message) => {
    const wire: Record<string, unknown> = {
      role: message.role,
      content: withMedia && message.content !== null && typeof message.content !== 'string' ? message.content.map(toOpenAiPart) : textContent(message.content),
    };
    if (message.reasoningContent !== undefined) wire['reasoning_content'] = message.reasoningContent;
    if (message.toolCalls !== undefined && message.toolCalls.length > 0) {
      wire['tool_calls'] = message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    if (message.toolCallId !== undefined) wire['tool_call_id'] = message.toolCallId;
    if (message.name !== undefined) wire['name'] = message.name;
    return wire;
  });
}

export function toOpenAiTools(tools: readonly FunctionTool[]): Record<string, unknown>[] {
  return tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      // Engines' chat templates expect an object schema even for a function without arguments.
      parameters: tool.parameters ?? { type: 'object', properties: {} },
    },
  }));
}

function toOpenAiPart(part: ContentPart): Record<string, unknown> {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'input_audio': {
      // The platform's {data, format} arrives as a data URL; engines want it back apart (vLLM takes audio_url for links).
      const inline = /^data:audio\/([\w.+-]+);base64,(.*)$/s.exec(part.url);
      if (inline?.[1] === undefined || inline[2] === undefined) return { type: 'audio_url', audio_url: { url: part.url } };
      return { type: 'input_audio', input_audio: { data: inline[2], format: inline[1] } };
    }
    default:
      return { type: part.type, [part.type]: { url: part.url } };
  }
}

const unsafeKeys = new Set(['__proto__', 'constructor', 'prototype']);

/** Each thinkingParam's keys, split and checked once (the config's few paths), not for every call. */
const dottedPaths = new Map<string, readonly string[] | undefined>();

function keysOf(path: string): readonly string[] | undefined {
  if (dottedPaths.has(path)) return dottedPaths.get(path);
  const keys = path.split('.');
  const valid = keys.every((key) => key !== '' && !unsafeKeys.has(key)) ? keys : undefined;
  dottedPaths.set(path, valid);
  return valid;
}

/** Sets `a.b.c` in a JSON body, creating the objects on the way (the engine's thinking switch). */
function setDottedPath(body: Record<string, unknown>, path: string, value: unknown, modelName: string): void {
  const keys = keysOf(path);
  if (keys === undefined) {
    throw new EngineFailure('misconfigured', modelName, `The model's thinkingParam '${path}' is not a dotted path of body fields; fix it in the config file.`);
  }
  let target = body;
  for (let index = 0; index < keys.length - 1; index += 1) {
    const key = keys[index] as string;
    const next = Object.hasOwn(target, key) ? target[key] : undefined;
    const child: Record<string, unknown> = typeof next === 'object' && next !== null && !Array.isArray(next) ? (next as Record<string, unknown>) : {};
    target[key] = child;
    target = child;
  }
  target[keys[keys.length - 1] ?? path] = value;
}
