import type { ChatMessage, ChatRequest } from '../core/chat/chat-types.ts';

/** What an agent step may set on its chat call; everything else is the engine's default. */
export interface AgentChatOptions {
  readonly temperature?: number;
  readonly maxTokens?: number;
}

/**
 * A ChatRequest for an agent's own call to a catalog chat model: plain text answers, no tools,
 * thinking off (agents ask for explicit reasoning where a step needs it, and hidden reasoning
 * would only add latency and tokens to every step of a pipeline).
 */
export function agentChatRequest(model: string, messages: readonly ChatMessage[], signal: AbortSignal, options: AgentChatOptions = {}): ChatRequest {
  return {
    model,
    messages,
    tools: [],
    temperature: options.temperature,
    topP: undefined,
    greedy: false,
    maxTokens: options.maxTokens,
    maxTokensLimit: undefined,
    stop: [],
    responseFormat: 'text',
    thinking: { enabled: false, effort: undefined },
    seed: undefined,
    signal,
  };
}
