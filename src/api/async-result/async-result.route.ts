import { notFound } from '../../core/errors/api-error.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { responses } from '../shared/common.schema.ts';
import { AsyncResultParams } from './async-result.schema.ts';
import { AsyncTaskResult } from './async-task.schema.ts';

export function registerAsyncResultRoutes(app: App, _deps: AppDependencies): void {
  app.get(
    '/async-result/:id',
    {
      schema: {
        operationId: 'getAsyncResult',
        tags: ['async'],
        summary: 'Result of an asynchronous image or video generation task.',
        params: AsyncResultParams,
        response: responses(AsyncTaskResult),
      },
    },
    async (request) => {
      // No task store exists in this build, so no id can name a task this key owns.
      throw notFound('Task', request.params.id);
    },
  );
}
