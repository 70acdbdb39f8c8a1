import { effectiveThinking } from '../../core/models/chat-model-rules.ts';
import { unitsBound } from '../../core/billing/usage-bound.ts';
import { modelInBody } from '../../http/admission-hooks.ts';
import { abortOnDisconnect } from '../../http/client-abort.ts';
import { setServedByHeaders } from '../../http/served-by-headers.ts';
import { generateRequestId } from '../../http/request-id.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { toChatMessages, toFunctionTools } from '../chat/chat-request.mapper.ts';
import { hasRemoteMedia, inlineRemoteMediaOf } from '../../core/chat/inline-remote-media.ts';
import { countPromptUsage } from '../../core/chat/prompt-token-usage.ts';
import { responses } from '../shared/common.schema.ts';
import { checkTokenizerRequest } from './tokenizer.checks.ts';
import { TokenizerRequest, TokenizerResponse } from './tokenizer.schema.ts';

export function registerTokenizerRoutes(app: App, deps: AppDependencies): void {
  // Media by URL is fetched here, as for chat: an engine's /tokenize would otherwise fetch a URL the client chose.

  app.post(
    '/tokenizer',
    {
      // Multimodal messages may carry base64 images, as on chat completions.
      bodyLimit: 32 * 1024 * 1024,
      schema: {
        operationId: 'countTokens',
        tags: ['tokenizer'],
        summary: 'Counts the tokens of a prompt (messages and function tools) as the model renders it.',
        body: TokenizerRequest,
        response: responses(TokenizerResponse),
      },
      config: { admission: modelInBody('model', () => unitsBound(undefined)), usage: 'tokenizer' },
    },
    async (request, reply) => {
      const body = request.body;
      checkTokenizerRequest(body);
      const counter = deps.backends.capability(body.model, 'tokenize');
      const signal = abortOnDisconnect(reply);
      let messages = toChatMessages(body.messages, true);
      if (hasRemoteMedia({ messages })) messages = await inlineRemoteMediaOf(messages, deps.mediaFetcher, signal);
      // The chat call's thinking rules (a model that always thinks counts its open think block).
      const thinking = effectiveThinking(body.model, body.thinking?.type, undefined);
      const usage = await countPromptUsage(
        counter,
        { messages, tools: toFunctionTools(body.tools ?? []), thinking, signal },
        request.apiKey?.id ?? '',
        deps.mediaReader,
      );
      setServedByHeaders(reply, signal);
      // A counted call, not consumed tokens: token quotas and token prices must not see the prompt as used.
      request.recordUsage({ model: body.model });
      return {
        id: `tok-${generateRequestId()}`,
        created: Math.floor(Date.now() / 1000),
        request_id: request.requestId,
        // prompt_tokens holds the image and video tokens, as the chat call's prompt_tokens does.
        usage: { prompt_tokens: usage.prompt, image_tokens: usage.image, video_tokens: usage.video, total_tokens: usage.prompt },
      };
    },
  );
}
