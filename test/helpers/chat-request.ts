import type { ChatRequest } from '../../src/core/chat/chat-types.ts';

/** A core chat request as a route would hand it to a backend: defaults of the API, then the test's own fields. */
export function chatRequest(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'glm-test',
    messages: [{ role: 'user', content: 'Hello' }],
    tools: [],
    temperature: undefined,
    topP: undefined,
    greedy: false,
    maxTokens: undefined,
    maxTokensLimit: undefined,
    stop: [],
    responseFormat: 'text',
    thinking: { enabled: true, effort: undefined },
    seed: undefined,
    signal: new AbortController().signal,
    ...overrides,
  };
}
