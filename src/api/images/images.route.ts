import { engineNotAvailable } from '../../core/models/model-resolver.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { AsyncTaskSubmission } from '../async-result/async-task.schema.ts';
import { responses } from '../shared/common.schema.ts';
import { checkAsyncImageRequest, checkImageRequest } from './images.checks.ts';
import { AsyncImageGenerationRequest, ImageGenerationRequest, ImageGenerationResponse } from './images.schema.ts';

export function registerImageRoutes(app: App, deps: AppDependencies): void {
  app.post(
    '/images/generations',
    {
      schema: {
        operationId: 'createImage',
        tags: ['images'],
        summary: 'Synchronous image generation.',
        body: ImageGenerationRequest,
        response: responses(ImageGenerationResponse),
      },
    },
    async (request) => {
      const body = request.body;
      checkImageRequest(body);
      const entry = deps.models.resolve(body.model, 'image');
      throw engineNotAvailable(body.model, entry, 'image');
    },
  );

  app.post(
    '/async/images/generations',
    {
      schema: {
        operationId: 'createImageAsync',
        tags: ['images'],
        summary: 'Asynchronous image generation (glm-image); poll GET /async-result/{id} for the result.',
        body: AsyncImageGenerationRequest,
        response: responses(AsyncTaskSubmission),
      },
    },
    async (request) => {
      const body = request.body;
      checkAsyncImageRequest(body);
      const entry = deps.models.resolve(body.model, 'image');
      throw engineNotAvailable(body.model, entry, 'image');
    },
  );
}
