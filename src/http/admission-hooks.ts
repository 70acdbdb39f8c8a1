import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Admission, AdmissionTicket, CallCharge } from '../core/limits/admission.ts';
import type { App, AppDependencies } from './app-types.ts';

/** How a route takes part in admission: which model a call names, and what a completed call is charged. */
export interface RouteAdmission {
  /**
   * From the validated body; `late` when only the handler knows it (multipart forms: the handler
   * calls `admitLateCall`); `none` for routes without a model (only the rate limit applies).
   */
  readonly model: 'none' | 'late' | ((body: Record<string, unknown>, deps: AppDependencies) => string | undefined);
  readonly charge: CallCharge;
}

/** A registered route and the admission it got, for the route-table walk (test/limits). */
export interface AdmittedRoute {
  readonly method: string;
  readonly url: string;
  /** The path inside its prefix: the key of the rules table. */
  readonly routePath: string;
  readonly public: boolean;
  /** Undefined: the table has no rule for it, so it is admitted as a route without a model. */
  readonly rule: RouteAdmission | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set for every route at registration (onRoute) from the rules table. */
    admission?: RouteAdmission;
  }
  interface FastifyInstance {
    /** Every route as registered, with its admission rule (buildApp). */
    admittedRoutes: readonly AdmittedRoute[];
  }
  interface FastifyRequest {
    /** Set on `late` routes: admits the call once the handler knows its model. */
    admitLateCall: ((model: string) => Promise<void>) | undefined;
  }
}

const noModel: RouteAdmission = { model: 'none', charge: 'none' };

/**
 * Puts every route under admission (issue 8), by hooks rather than per-route code:
 * - onRoute: the route gets its rule from `rules` (keyed `METHOD routePath`, HEAD as GET);
 * - onRequest, right after authentication: the key's rate limit, before any body is read;
 * - preHandler: the model call (allowed models, credit, quotas, concurrency) for routes whose
 *   model is in the body; the ticket finishes when the response is done or the client leaves
 *   (`close` of the raw response: a stream holds its slot until then).
 * Returns the routes as registered, for the route-table walk.
 */
export function installAdmission(app: App, deps: AppDependencies, admission: Admission, rules: Readonly<Record<string, RouteAdmission>>): AdmittedRoute[] {
  const routes: AdmittedRoute[] = [];
  app.decorateRequest('admitLateCall', undefined);
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const routePath = (route as RouteOptions & { routePath?: string }).routePath ?? route.url;
    const rule = rules[`${methods[0] === 'HEAD' ? 'GET' : methods[0]} ${routePath}`];
    route.config = { ...route.config, admission: rule ?? noModel };
    // Read when asked: scopes' own onRoute hooks (the docs pages') mark routes public after this one runs.
    for (const method of methods) {
      routes.push({ method, url: route.url, routePath, rule, get public() { return route.config?.public === true; } });
    }
  });

  app.addHook('onRequest', async (request) => {
    if (request.apiKey !== undefined) await admission.admitRequest(request.apiKey);
  });

  app.addHook('preHandler', async (request, reply) => {
    const key = request.apiKey;
    const rule = request.routeOptions.config.admission;
    if (key === undefined || rule === undefined || rule.model === 'none') return;
    if (rule.model === 'late') {
      let admitted = false;
      request.admitLateCall = async (model) => {
        if (admitted) throw new Error('a call is admitted once');
        admitted = true;
        finishWithResponse(reply, await admission.admitCall(key, model, rule.charge));
      };
      return;
    }
    const model = rule.model(request.body as Record<string, unknown>, deps);
    if (model !== undefined) finishWithResponse(reply, await admission.admitCall(key, model, rule.charge));
  });
  return routes;
}

/** For `late` routes: the handler names the model once it has read it (the same admission as every route). */
export async function admitLateCall(request: FastifyRequest, model: string): Promise<void> {
  if (request.apiKey === undefined) return;
  if (request.admitLateCall === undefined) throw new Error(`route ${request.routeOptions.url ?? ''} is not declared 'late' in the admission rules`);
  await request.admitLateCall(model);
}

/** A completed call is one whose whole answer left with a status below 400. */
function finishWithResponse(reply: FastifyReply, ticket: AdmissionTicket): void {
  const raw = reply.raw;
  if (raw.destroyed) {
    ticket.finish(false);
    return;
  }
  // 'finish': the whole answer was handed over (a client that left mid-stream never sees it).
  let answered = false;
  raw.once('finish', () => (answered = true));
  raw.once('close', () => ticket.finish(answered && raw.statusCode < 400));
}
