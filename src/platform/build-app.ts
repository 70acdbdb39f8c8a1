import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { registerApiRoutes } from '../api/register-api-routes.ts';
import { ErrorBody } from '../api/shared/common.schema.ts';
import { installAdmission } from '../http/admission-hooks.ts';
import type { App, AppDependencies } from '../http/app-types.ts';
import { handleClientError } from '../http/client-error-handler.ts';
import { installCloseUnreadBody } from '../http/close-unread-body.ts';
import { handleError, handleFrameworkError } from '../http/error-handler.ts';
import { registerHealthRoutes } from '../http/health.route.ts';
import { registerMetricsRoute } from '../http/metrics.route.ts';
import { RouteTable } from '../http/method-not-allowed.ts';
import { registerOpenApi } from '../api/openapi.ts';
import { installResponseValidation } from '../http/response-validation.ts';
import { installRequestMetrics } from '../http/request-metrics.ts';
import { installResponseEnd } from '../http/response-end.ts';
import { generateRequestId } from '../http/request-id.ts';
import { installRequestLogLine, RequestLineLogController } from '../http/request-log-line.ts';
import { installRequestTracing } from '../http/request-tracing.ts';
import { lazyRequestLogger } from '../http/request-logger.ts';
import { identifyAndAuthenticate, prepareBody } from '../http/request-hooks.ts';
import { installJsonBodyParser } from '../http/json-body-parser.ts';
import { defaultServerLimits, installServerLimits, serverOptions, type ServerLimits } from '../http/server-limits.ts';
import { watchShutdown } from '../http/shutdown.ts';
import { installUsageRecording } from '../http/usage-recording.ts';
import { registerConsoleRoutes } from '../http/console.route.ts';

/** Default JSON body limit; endpoints that take base64 media raise their own. */
const defaultBodyLimit = 8 * 1024 * 1024;

/**
 * The whole HTTP API as a Fastify app; nothing listens until the caller says so. `limits` are the
 * server's timeouts and per-address cap against slow clients (`serve` reads them from settings).
 */
export async function buildApp(deps: AppDependencies, limits: ServerLimits = defaultServerLimits): Promise<App> {
  const app = Fastify({
    ...serverOptions(limits),
    // What the HTTP parser refuses, and requests not received in time, are answered in the platform's body too.
    clientErrorHandler: handleClientError,
    ...loggerOptions(deps.logger),
    genReqId: () => generateRequestId(),
    childLoggerFactory: lazyRequestLogger,
    frameworkErrors: handleFrameworkError,
    // Requests that arrive while the server closes are answered in the platform's body (shutdown.ts).
    return503OnClosing: false,
    // One line per request, written by installRequestLogLine.
    logController: new RequestLineLogController({ requestIdLogLabel: 'request_id' }),
    bodyLimit: defaultBodyLimit,
    // JSON bodies holding "__proto__" or "constructor": {"prototype": …} at any depth are refused
    // (1210), not parsed. Fastify's defaults, stated here because the handlers rely on them.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    routerOptions: { ignoreTrailingSlash: true },
    ajv: {
      // Types are checked as sent: "1" is not a number. Defaults are applied in code, not by Ajv.
      customOptions: { coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  installServerLimits(app.server, limits);

  // Bodies are JSON (or multipart where a route says so); plain text is not an accepted body.
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app);
  // Response schemas document the contract; bodies are sent as built, never filtered by a serializer.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.decorateRequest('requestId', '');
  app.decorateRequest('apiKey', undefined);
  app.decorateRequest('routeOptionsRead', undefined);
  // First of the onRequest hooks, so requests that authentication or limits refuse are counted too.
  installResponseEnd(app);
  // Next, so the request's span covers authentication and admission, and its context is current in every later hook.
  installRequestTracing(app);
  installRequestLogLine(app);
  installRequestMetrics(app, deps.metrics);
  installCloseUnreadBody(app);
  app.addHook('onRequest', identifyAndAuthenticate(deps.authenticator, watchShutdown(app)));
  // Key limits on every route: rate right after authentication, model calls before the handler.
  app.decorate('admittedRoutes', installAdmission(app, deps.admission));
  installUsageRecording(app, deps.usage, deps.admission);
  app.addHook('preValidation', prepareBody);
  app.setErrorHandler(handleError);
  // Before any route exists, so that every route's answers are checked (tests only).
  if (deps.onResponseMismatch !== undefined) installResponseValidation(app, deps.onResponseMismatch, ErrorBody);

  const routes = new RouteTable();
  app.addHook('onRoute', (route) => routes.add(route));
  app.setNotFoundHandler(routes.notFoundHandler);

  await registerOpenApi(app);
  registerHealthRoutes(app, deps);
  registerMetricsRoute(app, deps.metrics);
  await registerApiRoutes(app, deps);
  await registerConsoleRoutes(app);
  return app;
}

/** Fastify's logger: the process's own when given one, else one made from pino options (or none). */
function loggerOptions(logger: AppDependencies['logger']) {
  if (typeof logger === 'object' && typeof (logger as { child?: unknown }).child === 'function') return { loggerInstance: logger as FastifyBaseLogger };
  return { logger: logger === false ? false : { redact: ['req.headers.authorization'], ...(logger === true ? {} : logger) } };
}
