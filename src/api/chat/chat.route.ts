import { engineNotAvailable } from '../../core/models/model-resolver.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { responses } from '../shared/common.schema.ts';
import { checkChatRequest } from './chat.checks.ts';
import { ChatCompletionRequest, ChatCompletionResponse } from './chat.schema.ts';

export function registerChatRoutes(app: App, deps: AppDependencies): void {
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
    },
    async (request) => {
      const body = request.body;
      checkChatRequest(body);
      const entry = deps.models.resolve(body.model, 'chat');
      throw engineNotAvailable(body.model, entry, 'chat');
    },
  );
}
