import { jsonReply, sseReply, type FakeReply, type RecordedRequest } from './fake-openai-server.ts';

/**
 * Replies in llama.cpp server's protocol for the fake engine (startFakeOpenAiServer's setDefault):
 * `/apply-template` renders a chat body with a small GLM-like template (the thinking switch opens
 * or closes the think block, tools are listed), `/tokenize` counts only `content` (a body with
 * `messages` gets no tokens, as the real server's does), `/v1/chat/completions/input_tokens` counts
 * a chat body, and a chat call (whole or streamed) reports the same count as its usage.prompt_tokens.
 */
export interface FakeLlamaServerOptions {
  /** An older server: /v1/chat/completions/input_tokens answers 404. */
  readonly withoutInputTokens?: boolean;
  /** A broken server: /tokenize answers no tokens even for content. */
  readonly emptyTokenize?: boolean;
}

export function fakeLlamaServer(options: FakeLlamaServerOptions = {}): (request: RecordedRequest) => FakeReply {
  return (request) => {
    switch (request.path) {
      case '/apply-template':
        return jsonReply({ prompt: renderChat(request.body) });
      case '/tokenize': {
        const content = request.body['content'];
        if (typeof content !== 'string' || options.emptyTokenize === true) return jsonReply({ tokens: [] });
        const tokens = tokenize(content, request.body['add_special'] === true);
        return jsonReply({ tokens: tokens.map((_token, index) => index + 10) });
      }
      case '/v1/chat/completions/input_tokens':
        if (options.withoutInputTokens === true) return jsonReply({ error: { code: 404, message: 'File Not Found', type: 'not_found_error' } }, 404);
        return jsonReply({ object: 'response.input_tokens', input_tokens: tokenize(renderChat(request.body), true).length });
      case '/v1/chat/completions': {
        const promptTokens = tokenize(renderChat(request.body), true).length;
        const usage = { prompt_tokens: promptTokens, completion_tokens: 1, total_tokens: promptTokens + 1 };
        if (request.body['stream'] === true) {
          // As the real server streams: the text, the finish, then usage in a chunk without choices.
          const chunk = (choices: unknown[], extra: object = {}) => ({
            id: 'chatcmpl-fake',
            object: 'chat.completion.chunk',
            created: 1,
            model: String(request.body['model']),
            choices,
            ...extra,
          });
          return sseReply([
            chunk([{ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: null }]),
            chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
            chunk([], { usage }),
          ]);
        }
        return jsonReply({
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          created: 1,
          model: String(request.body['model']),
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage,
        });
      }
      default:
        return jsonReply({ error: { code: 404, message: 'File Not Found', type: 'not_found_error' } }, 404);
    }
  };
}

/** The fake's chat template: what matters is that thinking, tools and every message change the count. */
export function renderChat(body: Readonly<Record<string, unknown>>): string {
  const kwargs = body['chat_template_kwargs'] as { enable_thinking?: unknown } | undefined;
  const thinking = kwargs?.enable_thinking !== false;
  const tools = Array.isArray(body['tools']) ? body['tools'] : [];
  const messages = Array.isArray(body['messages']) ? (body['messages'] as { role: string; content: unknown }[]) : [];
  let prompt = '[gMASK]<sop>';
  if (tools.length > 0) prompt += `<|system|> tools: ${tools.map((tool) => JSON.stringify(tool)).join(' ')}`;
  for (const message of messages) prompt += `<|${message.role}|> ${typeof message.content === 'string' ? message.content : JSON.stringify(message.content)}`;
  return `${prompt}<|assistant|>${thinking ? '' : '<think></think>'}`;
}

/** Special tokens one each, then words; `addSpecial` adds a BOS. */
function tokenize(text: string, addSpecial: boolean): string[] {
  const pieces = text.match(/<[^<>\s]*>|\[gMASK\]|[^\s<[]+/g) ?? [];
  return addSpecial ? ['<bos>', ...pieces] : pieces;
}
