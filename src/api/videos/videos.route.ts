import { engineNotAvailable } from '../../core/models/model-resolver.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { AsyncTaskSubmission } from '../async-result/async-task.schema.ts';
import { responses } from '../shared/common.schema.ts';
import { checkVideoRequest } from './videos.checks.ts';
import { VideoGenerationRequest } from './videos.schema.ts';

/** Two 5 MB images as base64 (about 14 MB) plus the rest of the body. */
const videoBodyLimit = 16 * 1024 * 1024;

export function registerVideoRoutes(app: App, deps: AppDependencies): void {
  app.post(
    '/videos/generations',
    {
      bodyLimit: videoBodyLimit,
      schema: {
        operationId: 'createVideo',
        tags: ['videos'],
        summary: 'Asynchronous video generation from text and/or images; poll GET /async-result/{id} for the result.',
        body: VideoGenerationRequest,
        response: responses(AsyncTaskSubmission),
      },
    },
    async (request) => {
      const body = request.body;
      checkVideoRequest(body);
      const entry = deps.models.resolve(body.model, 'video');
      throw engineNotAvailable(body.model, entry, 'video');
    },
  );
}
