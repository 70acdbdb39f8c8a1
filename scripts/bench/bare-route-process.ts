// The floor under model-platform for bench:chat (BENCH_FLOOR=1): one bare Fastify route that does
// only the chat call's own work — validate the body against the chat schema, map it to the engine's
// body, call the engine through the same exchange, map the answer back, with the AbortController
// that stops the engine when the client leaves. No authentication, limits, usage ledger, metrics,
// request ids or logs. Prints its origin on stdout. TARGET: the engine's base URL; UPSTREAM_MODEL: the
// model name the engine is asked for (default: the one the client named).
import Fastify from 'fastify';
import { toChatRequest } from '../../src/api/chat/chat-request.mapper.ts';
import { toChatCompletion } from '../../src/api/chat/chat-response.mapper.ts';
import { ChatCompletionRequest } from '../../src/api/chat/chat.schema.ts';
import { readChatCompletion } from '../../src/backends/engine-http/chat-completion-reader.ts';
import { EngineExchange } from '../../src/backends/engine-http/engine-exchange.ts';
import { defaultMaxResponseBytes } from '../../src/backends/engine-http/engine-request.ts';
import { engineDispatcher } from '../../src/backends/engine-http/engine-dispatcher.ts';
import { buildOpenAiChatBody, defaultThinkingParam } from '../../src/backends/engine-http/openai-chat-body.ts';
import { EngineFailure } from '../../src/core/errors/engine-failure.ts';

const url = `${process.env['TARGET'] ?? ''}/chat/completions`;
// The platform's own undici dispatcher (engine-dispatcher.ts), with its keep-alive settings: the
// fake engine, a Node server, closes a connection idle for 5 s.
const app = Fastify({ logger: false, ajv: { customOptions: { coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false } } });
app.setSerializerCompiler(() => (data) => JSON.stringify(data));
app.post('/chat/completions', { schema: { body: ChatCompletionRequest } }, async (request, reply) => {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  const chat = toChatRequest(request.body as ChatCompletionRequest, controller.signal);
  const body = buildOpenAiChatBody(
    chat,
    { modelName: chat.model, upstreamModel: process.env['UPSTREAM_MODEL'] ?? chat.model, thinkingParam: defaultThinkingParam, vision: false },
    false,
  );
  const exchange = new EngineExchange(engineDispatcher, {
    method: 'POST',
    url,
    headers: ['content-type', 'application/json'],
    body: JSON.stringify(body),
    signal: chat.signal,
    timeoutMs: 60_000,
    answer: 'whole',
    maxResponseBytes: defaultMaxResponseBytes,
    errorAnswer: (status) => new EngineFailure('engine-error', chat.model, `engine answered ${status}`),
  });
  const text = await exchange.settled.finally(() => exchange.end());
  const header = { id: `chatcmpl-${request.id}`, requestId: request.id, created: Math.floor(Date.now() / 1000), model: chat.model };
  return toChatCompletion(header, readChatCompletion(JSON.parse(text), chat.model));
});
await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`);
