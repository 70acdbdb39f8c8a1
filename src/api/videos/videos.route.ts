import { randomUUID } from 'node:crypto';
import type { StoredInputImage } from '../../core/media/generate-video.ts';
import { extensionOf } from '../../core/media/media-blobs.ts';
import { defaultVideoTimeoutMs, taskDeadlineMarginMs } from '../../core/media/media-timeouts.ts';
import { modelInBody } from '../../http/admission-hooks.ts';
import { abortOnDisconnect } from '../../http/client-abort.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { GuardedFetcher } from '../../tools/fetch/guarded-fetcher.ts';
import { SsrfGuard } from '../../tools/fetch/ssrf-guard.ts';
import { AsyncTaskSubmission } from '../async-result/async-task.schema.ts';
import { responses } from '../shared/common.schema.ts';
import { maxVideoImageBytes } from '../../core/media/video-input-limits.ts';
import { readVideoImage } from '../../tools/media/video-input-image.ts';
import { checkVideoRequest, listVideoImages } from './videos.checks.ts';
import { toVideoJob } from './videos.mapper.ts';
import { VideoGenerationRequest } from './videos.schema.ts';

/** Two 5 MB images as base64 (about 14 MB) plus the rest of the body. */
const videoBodyLimit = 16 * 1024 * 1024;

export function registerVideoRoutes(app: App, deps: AppDependencies): void {
  // Input images given as URLs are fetched like every URL the server fetches for a client: guarded.
  const fetcher = new GuardedFetcher({
    guard: new SsrfGuard({ allow: deps.config.fetch?.allow ?? [] }),
    maxBytes: maxVideoImageBytes,
    userAgent: 'model-platform (video input image)',
  });
  app.addHook('onClose', () => fetcher.close());

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
      // Paid through the credit its task holds.
      config: { admission: modelInBody('model') },
    },
    async (request, reply) => {
      const body = request.body;
      checkVideoRequest(body);
      // Refuse now when no engine serves the model, before any image is fetched or stored.
      deps.backends.capability(body.model, 'video');
      const entry = deps.models.resolve(body.model, 'video');
      const signal = abortOnDisconnect(reply);
      const sources = body.image_url === undefined ? [] : listVideoImages(body.image_url);
      const images = await Promise.all(sources.map((source) => readVideoImage(source, fetcher, signal)));
      // The task row keeps blob keys, not megabytes of base64; the handler reads the bytes back.
      const inputId = randomUUID();
      const stored: StoredInputImage[] = [];
      try {
        for (const [index, image] of images.entries()) {
          const key = `video-inputs/${inputId}/${index}.${extensionOf(image.contentType)}`;
          await deps.blobs.put(key, image.bytes, image.contentType);
          stored.push({ key, contentType: image.contentType });
        }
        const task = await deps.tasks.submit({
          kind: 'video',
          ownerKeyId: request.apiKey?.id ?? '',
          model: body.model,
          requestId: request.requestId,
          request: toVideoJob(body, stored),
          timeoutMs: (entry.timeoutMs ?? defaultVideoTimeoutMs) + taskDeadlineMarginMs,
        });
        return { model: task.model, id: task.id, request_id: task.requestId, task_status: task.status };
      } catch (error) {
        await Promise.all(stored.map((input) => deps.blobs.delete(input.key).catch(() => undefined)));
        throw error;
      }
    },
  );
}
