import type { FastifyRequest } from 'fastify';
import type { ChatUsage } from '../../core/chat/chat-types.ts';
import { promptTokensWithoutEngine } from '../../core/chat/cut-answer-usage.ts';
import { chatBound } from '../../core/billing/usage-bound.ts';
import { modelInBody } from '../../http/admission-hooks.ts';
import { abortOnDisconnect } from '../../http/client-abort.ts';
import { generateRequestId } from '../../http/request-id.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { SseWriter } from '../../http/sse-writer.ts';
import { setServedByHeaders, withServedByHeaders } from '../../http/served-by-headers.ts';
import { responses } from '../shared/common.schema.ts';
import { toWireSearchResult } from '../shared/search-result.mapper.ts';
import { prepareChat } from '../../core/chat/prepare-chat.ts';
import { checkChatRequest } from './chat.checks.ts';
import { toChatRequest, toChatRetrieval, toChatSearch } from './chat-request.mapper.ts';
import { toChatCompletion, type ChatAnswerHeader } from './chat-response.mapper.ts';
import { ChatCompletionChunk, ChatCompletionRequest, ChatCompletionResponse } from './chat.schema.ts';
import { relayChatStream } from './chat-stream-relay.ts';

export function registerChatRoutes(app: App, deps: AppDependencies): void {
  // What prepareChat uses, built once rather than per call.
  const preparation = { backends: deps.backends, mediaFetcher: deps.mediaFetcher, knowledge: deps.knowledge };
  app.post(
    '/chat/completions',
    {
      bodyLimit: 32 * 1024 * 1024,
      schema: {
        operationId: 'createChatCompletion',
        tags: ['chat'],
        summary: 'Chat completion, synchronous or streamed (text/event-stream of ChatCompletionChunk).',
        body: ChatCompletionRequest,
        response: responses(ChatCompletionResponse),
      },
      config: {
        admission: modelInBody('model', (body) => chatBound(body, typeof body['max_tokens'] === 'number' ? body['max_tokens'] : undefined)),
        usage: 'chat.completions',
        streamEvent: ChatCompletionChunk,
      },
    },
    async (request, reply) => {
      const body = request.body;
      checkChatRequest(body);
      const chat = deps.backends.capability(body.model, 'chat');
      const search = toChatSearch(body);
      const retrieval = toChatRetrieval(body);
      const { request: chatRequest, searchResults } = await prepareChat(
        preparation,
        toChatRequest(body, abortOnDisconnect(reply)),
        search,
        retrieval === undefined ? undefined : { ...retrieval, ownerKeyId: request.apiKey?.id ?? '' },
      );
      let header = answerHeader(request, body.model);
      if (searchResults !== undefined && search?.showResults === true) header = { ...header, webSearch: searchResults.map(toWireSearchResult) };
      // The web_search tool ran one search for this answer.
      const recordUsage = (usage: ChatUsage) =>
        request.recordUsage({ model: body.model, ...usage, ...(search === undefined ? {} : { units: { searches: 1 } }) });
      if (body.stream === true) {
        // For an answer cut by its engine's death: the model's tokenizer files if the platform has them, else an estimate.
        const localTokenizer =
          deps.models.resolve(body.model, 'chat').tokenizerPath === undefined ? undefined : () => deps.backends.capability(body.model, 'tokenize');
        const countPrompt = () => promptTokensWithoutEngine(chatRequest, localTokenizer);
        const usage = await relayChatStream(
          withServedByHeaders(chat.stream(chatRequest), reply, chatRequest.signal),
          header,
          body.tool_stream === true,
          new SseWriter(request, reply),
          countPrompt,
        );
        if (usage !== undefined) recordUsage(usage);
        return reply;
      }
      const result = await chat.generate(chatRequest);
      setServedByHeaders(reply, chatRequest.signal);
      try {
        // The answer is written first: the client does not wait for the bookkeeping (ledger, quotas, metrics).
        reply.send(toChatCompletion(header, result));
      } finally {
        recordUsage(result.usage);
      }
      return reply;
    },
  );
}

function answerHeader(request: FastifyRequest, model: string): ChatAnswerHeader {
  return {
    id: `chatcmpl-${generateRequestId()}`,
    requestId: request.requestId,
    created: Math.floor(Date.now() / 1000),
    model,
  };
}
