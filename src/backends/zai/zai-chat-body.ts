import type { ChatRequest } from '../../core/chat/chat-types.ts';
import { toOpenAiMessages, toOpenAiTools } from '../engine-http/openai-chat-body.ts';

/**
 * The upstream platform's own chat body: the same fields a client sends us, so the upstream
 * applies its own rules. Media parts pass through (the upstream model decides what it takes);
 * reasoning of earlier turns is only present when the client kept it, and then the upstream is
 * told to keep it too.
 */
export function buildZaiChatBody(request: ChatRequest, upstreamModel: string, stream: boolean): Record<string, unknown> {
  const keptReasoning = request.messages.some((message) => message.reasoningContent !== undefined);
  const body: Record<string, unknown> = {
    model: upstreamModel,
    messages: toOpenAiMessages(request.messages, true),
    stream,
    do_sample: !request.greedy,
    thinking: { type: request.thinking.enabled ? 'enabled' : 'disabled', ...(keptReasoning ? { clear_thinking: false } : {}) },
  };
  if (request.thinking.enabled && request.thinking.effort !== undefined) body['reasoning_effort'] = request.thinking.effort;
  if (request.temperature !== undefined) body['temperature'] = request.temperature;
  if (request.topP !== undefined) body['top_p'] = request.topP;
  if (request.maxTokens !== undefined) body['max_tokens'] = request.maxTokens;
  if (request.stop.length > 0) body['stop'] = [...request.stop];
  if (request.responseFormat === 'json_object') body['response_format'] = { type: 'json_object' };
  if (request.seed !== undefined) body['seed'] = request.seed;
  if (request.tools.length > 0) {
    body['tools'] = toOpenAiTools(request.tools);
    body['tool_choice'] = 'auto';
    // Argument fragments as they are generated; the HTTP layer decides whether the client sees them.
    if (stream) body['tool_stream'] = true;
  }
  return body;
}
