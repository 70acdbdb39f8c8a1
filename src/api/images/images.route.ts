import { randomUUID } from 'node:crypto';
import { generateImages } from '../../core/media/generate-images.ts';
import { defaultImageTimeoutMs, taskDeadlineMarginMs } from '../../core/media/media-timeouts.ts';
import { unitsBound } from '../../core/billing/usage-bound.ts';
import { modelInBody } from '../../http/admission-hooks.ts';
import { abortOnDisconnect } from '../../http/client-abort.ts';
import { setServedByHeaders } from '../../http/served-by-headers.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { AsyncTaskSubmission } from '../async-result/async-task.schema.ts';
import { requestOrigin } from '../blobs/request-origin.ts';
import { responses } from '../shared/common.schema.ts';
import { checkAsyncImageRequest, checkImageRequest } from './images.checks.ts';
import { toImageJob, toImageResponse } from './images.mapper.ts';
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
      config: { admission: modelInBody('model', () => unitsBound({ images: 1 })), usage: 'images.generations' },
    },
    async (request, reply) => {
      const body = request.body;
      checkImageRequest(body);
      const signal = abortOnDisconnect(reply);
      const stored = await generateImages(deps, toImageJob(body), { id: randomUUID(), asyncTask: false, signal });
      setServedByHeaders(reply, signal);
      const origin = requestOrigin(request);
      const urls = await Promise.all(stored.keys.map((key) => deps.blobs.downloadUrl(key, origin)));
      request.recordUsage({ model: body.model, units: { images: urls.length } });
      return toImageResponse(urls, stored.contentFilter);
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
      // Paid through the credit its task holds.
      config: { admission: modelInBody('model') },
    },
    async (request) => {
      const body = request.body;
      checkAsyncImageRequest(body);
      // Refuse now, not in the task, when no engine serves the model (1211 / 1221).
      deps.backends.capability(body.model, 'image');
      const entry = deps.models.resolve(body.model, 'image');
      const task = await deps.tasks.submit({
        kind: 'image',
        ownerKeyId: request.apiKey?.id ?? '',
        model: body.model,
        requestId: request.requestId,
        request: toImageJob(body),
        timeoutMs: (entry.timeoutMs ?? defaultImageTimeoutMs) + taskDeadlineMarginMs,
      });
      return { model: task.model, id: task.id, request_id: task.requestId, task_status: task.status };
    },
  );
}
