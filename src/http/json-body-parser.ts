import type { FastifyInstance } from 'fastify';
import { routeOf } from './route-of.ts';

/**
 * The JSON body parser, with one difference from Fastify's: on a route that takes no body, an
 * empty body sent with a JSON content type is no body at all. The Python SDKs send
 * `Content-Type: application/json` on every request, DELETE /files/{id} included, with nothing
 * after the headers; Fastify's parser refuses that as an empty JSON body. On routes that take a
 * body, an empty one is still refused as before. Everything else is Fastify's own parser, with the
 * app's prototype-poisoning options.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig;
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body: string, done) => {
    if (body.length === 0 && routeOf(request).schema?.body === undefined) {
      done(null, undefined);
      return;
    }
    parseJson(request, body, done);
  });
}
