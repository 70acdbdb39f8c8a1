import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatModel } from '../../core/chat/chat-model.ts';
import type { ChatRequest, ChatUsage } from '../../core/chat/chat-types.ts';
import { promptTokensWithoutEngine } from '../../core/chat/cut-answer-usage.ts';
import { chatBound } from '../../core/billing/usage-bound.ts';
import { modelInBody } from '../../http/admission-hooks.ts';
import { abortOnDisconnect } from '../../http/client-abort.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { SseWriter } from '../../http/sse-writer.ts';
import { setServedByHeaders, withServedByHeaders } from '../../http/served-by-headers.ts';
import { responses } from '../shared/common.schema.ts';
import { toWireSearchResult } from '../shared/search-result.mapper.ts';
import { prepareChat, type PreparedChat } from '../../core/chat/prepare-chat.ts';
import { hasRemoteMedia } from '../../core/chat/inline-remote-media.ts';
import type { CallUsage } from '../../core/usage/call-usage.ts';
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
    (request, reply) => {
      const body = request.body;
      checkChatRequest(body);
      const chat = deps.backends.capability(body.model, 'chat');
      const search = toChatSearch(body);
      const retrieval = toChatRetrieval(body);
      const asSent = toChatRequest(body, abortOnDisconnect(reply));
      // A call without media URLs, retrieval or web search is sent as it is, without waiting for a preparation.
      if (search === undefined && retrieval === undefined && !hasRemoteMedia(asSent)) {
        return answer(deps, body, { request, reply, chat, chatRequest: asSent, header: answerHeader(request, body.model), searched: false });
      }
      const retrievalOfKey = retrieval === undefined ? undefined : { ...retrieval, ownerKeyId: request.apiKey?.id ?? '' };
      return prepareChat(preparation, asSent, search, retrievalOfKey).then(({ request: chatRequest, searchResults }: PreparedChat) => {
        let header = answerHeader(request, body.model);
        if (searchResults !== undefined && search?.showResults === true) header = { ...header, webSearch: searchResults.map(toWireSearchResult) };
        return answer(deps, body, { request, reply, chat, chatRequest, header, searched: search !== undefined });
      });
    },
  );
}

/** One chat call on its way to the answer, sync or streamed. */
interface ChatCall {
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly chat: ChatModel;
  readonly chatRequest: ChatRequest;
  readonly header: ChatAnswerHeader;
  /** The web_search tool ran one search for the answer. */
  readonly searched: boolean;
}

function answer(deps: AppDependencies, body: ChatCompletionRequest, call: ChatCall): Promise<void> {
  return body.stream === true ? streamAnswer(deps, call, body.tool_stream === true) : syncAnswer(call);
}

/** The whole answer in one body; a promise chain rather than an async function, as this runs for every sync call. */
function syncAnswer(call: ChatCall): Promise<void> {
  const { request, reply, chatRequest, header } = call;
  return call.chat.generate(chatRequest).then((result) => {
    setServedByHeaders(reply, chatRequest.signal);
    try {
      // The answer is written first: the client does not wait for the bookkeeping (ledger, quotas, metrics).
      reply.send(toChatCompletion(header, result));
    } finally {
      request.recordUsage(chatCallUsage(header.model, result.usage, call.searched));
    }
  });
}

async function streamAnswer(deps: AppDependencies, call: ChatCall, toolStream: boolean): Promise<void> {
  const { request, reply, chatRequest, header } = call;
  const model = header.model;
  // For an answer cut by its engine's death: the model's tokenizer files if the platform has them, else an estimate.
  const localTokenizer = deps.models.resolve(model, 'chat').tokenizerPath === undefined ? undefined : () => deps.backends.capability(model, 'tokenize');
  const countPrompt = () => promptTokensWithoutEngine(chatRequest, localTokenizer);
  const usage = await relayChatStream(
    withServedByHeaders(call.chat.stream(chatRequest), reply, chatRequest.signal),
    header,
    toolStream,
    new SseWriter(request, reply),
    countPrompt,
  );
  if (usage !== undefined) request.recordUsage(chatCallUsage(model, usage, call.searched));
}

/** What a chat call used, field by field (no spread copy on every call); the web_search tool ran one search for the answer. */
function chatCallUsage(model: string, usage: ChatUsage, searched: boolean): CallUsage {
  const { promptTokens, completionTokens, cachedTokens } = usage;
  return searched ? { model, promptTokens, completionTokens, cachedTokens, units: { searches: 1 } } : { model, promptTokens, completionTokens, cachedTokens };
}

function answerHeader(request: FastifyRequest, model: string): ChatAnswerHeader {
  return {
    // The request's generated id (unique per process and time, as a fresh one would be), whatever request_id the client chose.
    id: `chatcmpl-${request.id}`,
    requestId: request.requestId,
    created: Math.floor(Date.now() / 1000),
    model,
  };
}
