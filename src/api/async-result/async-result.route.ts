import { notFound } from '../../core/errors/api-error.ts';
import { rateLimitOnly } from '../../http/admission-hooks.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { requestOrigin } from '../blobs/request-origin.ts';
import { responses } from '../shared/common.schema.ts';
import { toAsyncTaskResult } from './async-result.mapper.ts';
import { AsyncResultParams } from './async-result.schema.ts';
import { AsyncTaskResult } from './async-task.schema.ts';

export function registerAsyncResultRoutes(app: App, deps: AppDependencies): void {
  app.get(
    '/async-result/:id',
    {
      schema: {
        operationId: 'getAsyncResult',
        tags: ['async'],
        summary: 'Result of an asynchronous image generation, video generation or chat completion task.',
        description:
          'task_status is PROCESSING, SUCCESS or FAIL. A chat answer has the choices and usage of POST /chat/completions. Media URLs are absolute and expire (MODEL_PLATFORM_BLOB_URL_TTL); ' +
          'a FAIL answer carries error {code, message}. Only the key that submitted the task can read it; others get 404.',
        params: AsyncResultParams,
        response: responses(AsyncTaskResult),
      },
      config: { admission: rateLimitOnly },
    },
    async (request) => {
      const owner = request.apiKey?.id ?? '';
      const task = await deps.tasks.get(request.params.id, owner);
      // Another key's task and a task that never existed answer alike, so ids reveal nothing.
      if (task === undefined) throw notFound('Task', request.params.id);
      return toAsyncTaskResult(task, deps.blobs, requestOrigin(request));
    },
  );
}
