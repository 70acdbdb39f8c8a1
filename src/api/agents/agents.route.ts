import type { FastifyRequest } from 'fastify';
import type { Agent } from '../../agents/agent.ts';
import { ApiError, notFound } from '../../core/errors/api-error.ts';
import { quoteClientValue } from '../../core/errors/quote-client-value.ts';
import { featureNotAvailable } from '../../core/models/model-resolver.ts';
import { chatBound } from '../../core/billing/usage-bound.ts';
import { modelInBody, rateLimitOnly } from '../../http/admission-hooks.ts';
import { abortOnDisconnect } from '../../http/client-abort.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { generateRequestId } from '../../http/request-id.ts';
import { SseWriter } from '../../http/sse-writer.ts';
import { requestOrigin } from '../blobs/request-origin.ts';
import { responses } from '../shared/common.schema.ts';
import { collectAgentRun, relayAgentStream } from './agent-stream-relay.ts';
import { asyncResultId, checkAgentChatRequest } from './agents.checks.ts';
import { toAgentChatResult, toAgentInput, toAsyncResult, toConversationQuery, toConversationResult, type AgentOutcome } from './agents.mapper.ts';
import {
  AgentAsyncResult,
  AgentAsyncResultRequest,
  AgentChatChunk,
  AgentChatRequest,
  AgentChatResult,
  AgentConversationRequest,
  AgentConversationResult,
} from './agents.schema.ts';

/** Paths are relative to the agent prefixes (/v1/agents, /api/v1/agents, /paas/v4/v1/agents, ...). */
export function registerAgentRoutes(app: App, deps: AppDependencies): void {
  app.post(
    '',
    {
      bodyLimit: 32 * 1024 * 1024,
      schema: {
        operationId: 'createAgentChat',
        tags: ['agents'],
        summary: 'Agent chat: translation, special-effects video, slides/posters; synchronous or streamed (AgentChatChunk).',
        body: AgentChatRequest,
        response: responses(AgentChatResult),
      },
      // Agents are limited and priced by agent_id (a key's `models` lists the agents it may call),
      // their tokens bounded as a chat call's; the tasks an agent submits reserve at their own model's prices.
      config: { admission: modelInBody('agent_id', (body) => chatBound(body, undefined)), usage: 'agents', streamEvent: AgentChatChunk },
    },
    async (request, reply) => {
      const body = request.body;
      checkAgentChatRequest(body);
      const agent: Agent = deps.agents[body.agent_id];
      const events = agent.run(toAgentInput(body, { ownerKeyId: ownerKeyId(request), requestId: request.requestId, signal: abortOnDisconnect(reply) }));
      const header = { id: generateRequestId(), agentId: body.agent_id };
      const recordUsage = (outcome: AgentOutcome) =>
        request.recordUsage({ model: body.agent_id, promptTokens: outcome.usage.promptTokens, completionTokens: outcome.usage.completionTokens });
      if (body.stream === true) {
        const outcome = await relayAgentStream(events, header, new SseWriter(request, reply));
        if (outcome !== undefined) recordUsage(outcome);
        return reply;
      }
      const { text, outcome } = await collectAgentRun(events);
      recordUsage(outcome);
      return toAgentChatResult(header, text, outcome);
    },
  );

  app.post(
    '/conversation',
    {
      schema: {
        operationId: 'getAgentConversation',
        tags: ['agents'],
        summary: 'Conversation history of the slides/poster agent.',
        body: AgentConversationRequest,
        response: responses(AgentConversationResult),
      },
      config: { admission: rateLimitOnly },
    },
    async (request) => {
      const body = request.body;
      const agent: Agent = deps.agents[body.agent_id];
      if (agent.conversation === undefined) throw featureNotAvailable(`Conversation history of the agent '${body.agent_id}'`);
      const items = await agent.conversation(toConversationQuery(body, ownerKeyId(request)), requestOrigin(request));
      if (items === undefined) throw notFound('Conversation', body.conversation_id);
      return toConversationResult(body, items);
    },
  );

  app.post(
    '/async-result',
    {
      schema: {
        operationId: 'getAgentAsyncResult',
        tags: ['agents'],
        summary: 'Result of an asynchronous agent request (status pending, success or failed).',
        body: AgentAsyncResultRequest,
        response: responses(AgentAsyncResult),
      },
      config: { admission: rateLimitOnly },
    },
    async (request) => {
      const body = request.body;
      const id = asyncResultId(body);
      const agent: Agent = deps.agents[body.agent_id];
      // An agent that never answers asynchronously has no result under any id: the same 404 as an unknown id.
      const result = await agent.asyncResult?.(ownerKeyId(request), id, requestOrigin(request));
      if (result === undefined)
        throw new ApiError('404', `No asynchronous result '${quoteClientValue(id)}' of the agent '${body.agent_id}' exists for this API key.`);
      return toAsyncResult(body.agent_id, id, result);
    },
  );
}

/** Agent routes are authenticated, so the key is always there; the check guards a misconfigured route. */
function ownerKeyId(request: FastifyRequest): string {
  const id = request.apiKey?.id;
  if (id === undefined) throw new ApiError('1001');
  return id;
}
