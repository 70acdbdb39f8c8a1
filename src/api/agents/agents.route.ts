import { featureNotAvailable } from '../../core/models/model-resolver.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { responses } from '../shared/common.schema.ts';
import { asyncResultId, checkAgentChatRequest } from './agents.checks.ts';
import {
  AgentAsyncResult,
  AgentAsyncResultRequest,
  AgentChatRequest,
  AgentChatResult,
  AgentConversationRequest,
  AgentConversationResult,
} from './agents.schema.ts';

/** Paths are relative to the agent prefixes (/v1/agents, /api/v1/agents, /paas/v4/v1/agents, ...). */
export function registerAgentRoutes(app: App, _deps: AppDependencies): void {
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
    },
    async (request) => {
      const body = request.body;
      checkAgentChatRequest(body);
      throw featureNotAvailable(`The agent '${body.agent_id}'`);
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
    },
    async (request) => {
      throw featureNotAvailable(`Conversation history of the agent '${request.body.agent_id}'`);
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
    },
    async (request) => {
      const body = request.body;
      asyncResultId(body);
      throw featureNotAvailable(`Asynchronous result retrieval for the agent '${body.agent_id}'`);
    },
  );
}
