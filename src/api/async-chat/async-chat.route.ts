import { checkKnowledgeBase } from '../../core/knowledge/chat-retrieval.ts';
import { taskDeadlineMarginMs } from '../../core/media/media-timeouts.ts';
import { defaultTaskTimeoutMs } from '../../core/tasks/task-timeouts.ts';
import { modelInBody } from '../../http/admission-hooks.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { AsyncTaskSubmission } from '../async-result/async-task.schema.ts';
import { responses } from '../shared/common.schema.ts';
import { checkAsyncChatRequest } from './async-chat.checks.ts';
import { toChatTaskRequest } from './async-chat.mapper.ts';
import { AsyncChatCompletionRequest } from './async-chat.schema.ts';

export function registerAsyncChatRoutes(app: App, deps: AppDependencies): void {
  const knowledge = deps.knowledge;
  app.post(
    '/async/chat/completions',
    {
      // Multimodal messages may carry base64 media, as on sync chat.
      bodyLimit: 32 * 1024 * 1024,
      schema: {
        operationId: 'createChatCompletionAsync',
        tags: ['chat'],
        summary: 'Asynchronous chat completion; poll GET /async-result/{id} for the answer.',
        description:
          'The chat body without streaming, checked as POST /chat/completions checks it. The answer is the sync ' +
          "answer's choices and usage once task_status is SUCCESS.",
        body: AsyncChatCompletionRequest,
        response: responses(AsyncTaskSubmission),
      },
      // Paid through the credit its task holds; its tokens through the usage its task records.
      config: { admission: modelInBody('model') },
    },
    async (request) => {
      const body = request.body;
      checkAsyncChatRequest(body);
      // Refuse now, not in the task, when no engine serves the model (1211 / 1221).
      deps.backends.capability(body.model, 'chat');
      const ownerKeyId = request.apiKey?.id ?? '';
      const job = toChatTaskRequest(body);
      // As sync chat does: an unknown knowledge base (another key's included) is 404 now, with no task and nothing charged.
      if (job.retrieval !== undefined) await checkKnowledgeBase(knowledge, ownerKeyId, job.retrieval.knowledgeId);
      const engineTimeoutMs = deps.models.resolve(body.model, 'chat').timeoutMs;
      const task = await deps.tasks.submit({
        kind: 'chat',
        ownerKeyId,
        model: body.model,
        requestId: request.requestId,
        request: job,
        // The engine's own limit decides first, with a clearer reason, when it is the longer one.
        timeoutMs: Math.max(defaultTaskTimeoutMs('chat'), (engineTimeoutMs ?? 0) + taskDeadlineMarginMs),
      });
      return { model: task.model, id: task.id, request_id: task.requestId, task_status: task.status };
    },
  );
}
