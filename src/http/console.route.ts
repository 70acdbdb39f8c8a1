import { existsSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import { ApiError, notFound } from '../core/errors/api-error.ts';
import type { App } from './app-types.ts';

/**
 * The built operator console: `npm run build` writes it (Vite) to dist/console at the package's
 * root, which is two folders above this file both as a source (src/http) and compiled (dist/http).
 */
export const consoleBuildFolder = fileURLToPath(new URL('../../dist/console/', import.meta.url));

/** Vite names every asset after its content, so a URL's bytes never change: caches may keep them for good. */
const hashedAssetCaching = 'public, max-age=31536000, immutable';

/**
 * The operator console at /console (a single-page app; GET / leads there). Public like /docs: the
 * page itself holds nothing, and every call it makes is an ordinary API call with the key the
 * operator signs in with. Files are served only from the list read at start-up, so no request path
 * reaches the disk; a path that is not a file is a client-side route and gets index.html, except
 * under assets/, where a missing file is a 404 (an old page asking for a replaced bundle must not
 * get HTML as script). index.html is revalidated on every load so a new build is seen at once.
 */
export async function registerConsoleRoutes(app: App, folder = consoleBuildFolder): Promise<void> {
  const files = builtFiles(folder);
  await app.register(fastifyStatic, { root: folder, serve: false });
  const options = { schema: { hide: true }, config: { public: true, countedInMetrics: false } };

  app.get('/', options, async (_request, reply) => reply.redirect('/console/', 302));
  const sendPage = (reply: FastifyReply) => {
    if (!files.has('index.html')) throw new ApiError('500', `The operator console is not built: run 'npm run build' (it writes ${folder}).`);
    return sendBuilt(reply, 'index.html', 'no-cache');
  };
  // With ignoreTrailingSlash this is /console/ too, which the wildcard below does not match.
  app.get('/console', options, async (_request, reply) => sendPage(reply));
  app.get('/console/*', options, async (request, reply) => {
    const path = (request.params as { '*': string })['*'];
    if (files.has(path) && path !== 'index.html') {
      return sendBuilt(reply, path, path.startsWith('assets/') ? hashedAssetCaching : 'no-cache');
    }
    if (path.startsWith('assets/')) throw notFound('Console asset', path);
    return sendPage(reply);
  });
}

function sendBuilt(reply: FastifyReply, path: string, cacheControl: string): FastifyReply {
  reply.header('cache-control', cacheControl);
  reply.header('x-content-type-options', 'nosniff');
  return reply.sendFile(path, { cacheControl: false });
}

/** Every file of the build, as URL paths relative to its folder (none when it was never built). */
function builtFiles(folder: string): ReadonlySet<string> {
  if (!existsSync(folder)) return new Set();
  const entries = readdirSync(folder, { recursive: true, withFileTypes: true });
  return new Set(entries.filter((entry) => entry.isFile()).map((entry) => relative(folder, join(entry.parentPath, entry.name)).split(sep).join('/')));
}
