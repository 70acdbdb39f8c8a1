import { Type } from '@sinclair/typebox';
import { ApiError } from '../../core/errors/api-error.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';

const DownloadQuery = Type.Object({
  expires: Type.Optional(Type.String()),
  signature: Type.Optional(Type.String()),
});

/**
 * GET /blobs/<key>?expires=&signature=: generated media behind the signed, expiring URLs that
 * GET /async-result hands out. No API key: the signature is the permission (clients and browsers
 * fetch these URLs directly). A bad signature, an expired link and a missing blob all answer 404
 * in the platform's error body, so a link reveals nothing about other blobs.
 */
export function registerBlobRoutes(app: App, deps: AppDependencies): void {
  app.get('/blobs/*', { schema: { hide: true, querystring: DownloadQuery }, config: { public: true } }, async (request, reply) => {
    const key = (request.params as { '*': string })['*'];
    const { expires, signature } = request.query;
    const check = deps.blobUrls.verify(key, expires, signature);
    if (check === 'expired') throw new ApiError('404', 'This download link has expired: query the task again for a fresh one.');
    if (check === 'invalid') throw new ApiError('404', 'This download link is not valid: its signature does not match.');
    const blob = await deps.blobs.get(key);
    if (blob === undefined) throw new ApiError('404', 'This file no longer exists (generated media are kept for a limited time).');
    const secondsLeft = Math.max(0, Number(expires) - Math.floor(Date.now() / 1000));
    return reply
      .header('content-type', blob.info.contentType)
      .header('content-length', blob.info.bytes)
      .header('cache-control', `private, max-age=${secondsLeft}`)
      .send(blob.stream);
  });
}
