import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Admission, AdmissionTicket, CallCharge } from '../core/limits/admission.ts';
import type { App, AppDependencies } from './app-types.ts';
import { routeOf } from './route-of.ts';

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
 * - onRequest, right after authentication: the key's rate limit, before any body is read, on
 *   routes without a model and `late` ones;
 * - preHandler: on routes whose model is in the body, the rate and the model call (allowed
 *   models, credit, quotas, concurrency) in one limiter step; the ticket finishes when the
 *   response is done or the client leaves (`close` of the raw response: a stream holds its slot
 *   until then).
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

  // Callback hooks rather than async ones: a key without limits costs no promise here.
  app.addHook('onRequest', (request, _reply, done) => {
    const key = request.apiKey;
    if (key === undefined) {
      done();
      return;
    }
    // Routes whose model is in the body count the request in their call check (preHandler): one
    // limiter step (one Redis round trip) per call instead of two, at the price of refusing a key
    // over its rate only after its body is read, and of not counting requests refused before the
    // call check (an invalid body, a model the key may not use, no credit). `late` routes and
    // routes without a model are refused here, before the body (BENCHMARKS.md "bench:fleet").
    const countedByCall = key.policy?.requestsPerMinute !== undefined && typeof routeOf(request).config.admission?.model === 'function';
    continueAfter(admission.admitRequest(key, countedByCall), done);
  });

  app.addHook('preHandler', (request, reply, done) => {
    const key = request.apiKey;
    // A key without a policy was remembered in onRequest and has nothing to check here.
    if (key?.policy === undefined) {
      done();
      return;
    }
    const rule = routeOf(request).config.admission;
    if (rule === undefined || rule.model === 'none') {
      done();
      return;
    }
    if (rule.model === 'late') {
      let admitted = false;
      request.admitLateCall = async (model) => {
        if (admitted) throw new Error('a call is admitted once');
        admitted = true;
        const ticket = await admission.admitCall(key, model, rule.charge, false);
        if (ticket !== undefined) finishWithResponse(request, reply, ticket);
      };
      done();
      return;
    }
    const model = rule.model(request.body as Record<string, unknown>, deps);
    if (model === undefined) {
      // No model named (the route's schema lets it be absent): the request's rate is counted alone.
      continueAfter(admission.admitRequest(key), done);
      return;
    }
    let admitted: ReturnType<Admission['admitCall']>;
    try {
      admitted = admission.admitCall(key, model, rule.charge, true);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (admitted instanceof Promise) {
      continueAfter(
        admitted.then((ticket) => {
          if (ticket !== undefined) finishWithResponse(request, reply, ticket);
        }),
        done,
      );
      return;
    }
    // Admitted at once (or nothing to admit): no promise on this call's path.
    if (admitted !== undefined) finishWithResponse(request, reply, admitted);
    done();
  });
  return routes;
}

/**
 * For `late` routes: the handler names the model once it has read it (the same admission as every
 * route). A key without a policy has nothing to admit (the preHandler leaves such requests alone).
 */
export async function admitLateCall(request: FastifyRequest, model: string): Promise<void> {
  if (request.apiKey?.policy === undefined) return;
  if (request.admitLateCall === undefined) throw new Error(`route ${request.routeOptions.url ?? ''} is not declared 'late' in the admission rules`);
  await request.admitLateCall(model);
}

/** Lets a callback hook go on: at once when there is nothing to wait for, else once the check settles. */
function continueAfter(pending: Promise<void> | undefined, done: (error?: Error) => void): void {
  if (pending === undefined) done();
  else pending.then(() => done(), (error: Error) => done(error));
}

/**
 * A completed call is one whose whole answer was handed over with a status below 400 (a client
 * that left mid-stream never got it); a stream holds its slot until then.
 */
function finishWithResponse(request: FastifyRequest, reply: FastifyReply, ticket: AdmissionTicket): void {
  request.responseEnd.onEnd((complete) => ticket.finish(complete && reply.raw.statusCode < 400));
}
