import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { PricedUsage } from '../core/billing/model-price.ts';
import type { AdmittedKey, Admission, AdmissionTicket } from '../core/limits/admission.ts';
import { inSpan, platformTracer } from '../core/telemetry/tracing.ts';
import type { App } from './app-types.ts';
import { routeOf } from './route-of.ts';

/**
 * How a route takes part in admission, declared in its `config.admission` beside its schema:
 * which model a call names, and the most a call can use, reserved from a key's credit before the
 * handler runs (absent: the call reserves nothing itself; the task it submits does).
 */
export interface RouteAdmission {
  /**
   * From the validated body; `late` when only the handler knows it (multipart forms: the handler
   * calls `admitLateCall`); `none` for routes without a model (only the rate limit applies).
   */
  readonly model: 'none' | 'late' | ((body: Record<string, unknown>) => string | undefined);
  readonly bound?: (body: Record<string, unknown>) => PricedUsage;
}

/** A registered route and the admission rule its config declares, for the route-table walk (test/limits). */
export interface AdmittedRoute {
  readonly method: string;
  readonly url: string;
  /** The path inside its prefix. */
  readonly routePath: string;
  readonly public: boolean;
  /** Undefined: the route declares none, so it is admitted as a route without a model. */
  readonly rule: RouteAdmission | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's admission rule (RouteAdmission); every authenticated route declares one. */
    admission?: RouteAdmission;
  }
  interface FastifyInstance {
    /** Every route as registered, with its admission rule (buildApp). */
    admittedRoutes: readonly AdmittedRoute[];
  }
  interface FastifyRequest {
    /** Set on `late` routes: admits the call once the handler knows its model and the most it can use. */
    admitLateCall: ((model: string, bound: (() => PricedUsage) | undefined) => Promise<void>) | undefined;
    /** The admitted model call's ticket: its usage records are priced and charged through it. */
    admissionTicket: AdmissionTicket | undefined;
  }
}

/** A route that calls no model: only the key's rate limit applies. */
export const rateLimitOnly: RouteAdmission = { model: 'none' };

/** A route whose body names the model of its call in `field`; `bound`: the most a call uses (absent: its task reserves). */
export function modelInBody(field: string, bound?: (body: Record<string, unknown>) => PricedUsage): RouteAdmission {
  return {
    model: (body) => {
      const value = body[field];
      return typeof value === 'string' ? value : undefined;
    },
    ...(bound === undefined ? {} : { bound }),
  };
}

/**
 * Puts every route under admission by hooks rather than per-route code, each route's rule read
 * from its config:
 * - onRequest, right after authentication: the key's rate limit, before any body is read, on
 *   routes without a model and `late` ones;
 * - preHandler: on routes whose model is in the body, the rate and the model call (allowed
 *   models, credit reservation, quotas, concurrency) in one limiter step; the ticket frees its
 *   slot when the response is done or the client leaves (a stream holds its slot until then),
 *   and settles its reservation when the handler is done (usage is recorded in the handler, a
 *   cut stream's too, after the client left) or, for a request the handler never ran for, at
 *   the response's end.
 * Returns the routes as registered, for the route-table walk.
 */
export function installAdmission(app: App, admission: Admission): AdmittedRoute[] {
  const routes: AdmittedRoute[] = [];
  app.decorateRequest('admitLateCall', undefined);
  app.decorateRequest('admissionTicket', undefined);
  app.addHook('onRoute', (route: RouteOptions) => {
    settleAfterHandler(route);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const routePath = (route as RouteOptions & { routePath?: string }).routePath ?? route.url;
    // Read when asked: scopes' own onRoute hooks (the docs pages') mark routes public after this one runs.
    for (const method of methods) {
      routes.push({
        method,
        url: route.url,
        routePath,
        get rule() {
          return route.config?.admission;
        },
        get public() {
          return route.config?.public === true;
        },
      });
    }
  });

  // Callback hooks: most requests (a key without limits) pass both without waiting, and a
  // promise per hook per request is work on every call.
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
    // routes without a model are refused here, before the body.
    const countedByCall = key.policy?.requestsPerMinute !== undefined && typeof ruleOf(request).model === 'function';
    if (countedByCall || admission.admitsAtOnce(key, false)) {
      done();
      return;
    }
    admitRequest(admission, key).then(() => done(), done);
  });

  app.addHook('preHandler', (request, _reply, done) => {
    const key = request.apiKey;
    // A key without a policy was remembered in onRequest and has nothing to check here, nor has
    // a route without a model, nor a call whose key limits nothing (`late` routes still get their
    // admitLateCall, which the handler calls).
    const model = key?.policy === undefined ? 'none' : ruleOf(request).model;
    if (key === undefined || model === 'none' || (model !== 'late' && admission.admitsAtOnce(key, true))) {
      done();
      return;
    }
    admitByRule(admission, request, key).then(() => done(), done);
  });
  return routes;
}

/** The preHandler's check of a key with a policy, by the route's rule. */
async function admitByRule(admission: Admission, request: FastifyRequest, key: AdmittedKey): Promise<void> {
  const rule = ruleOf(request);
  if (rule.model === 'none') return;
  if (rule.model === 'late') {
    let admitted = false;
    request.admitLateCall = async (model, bound) => {
      if (admitted) throw new Error('a call is admitted once');
      admitted = true;
      const ticket = await admitCall(admission, key, model, bound, false);
      if (ticket !== undefined) keepTicket(request, ticket);
    };
    return;
  }
  const model = rule.model(request.body as Record<string, unknown>);
  // No model named (the route's schema lets it be absent): the request's rate is counted alone.
  if (model === undefined) {
    await admitRequest(admission, key);
    return;
  }
  const bound = rule.bound;
  const ticket = await admitCall(admission, key, model, bound === undefined ? undefined : () => bound(request.body as Record<string, unknown>), true);
  if (ticket !== undefined) keepTicket(request, ticket);
}

/**
 * For `late` routes: the handler names the model once it has read it (the same admission as every
 * route), and the most the call can use (asked only of a key with credit, after its other checks). A key without a policy has nothing to admit (the preHandler leaves such requests alone).
 */
export async function admitLateCall(request: FastifyRequest, model: string, bound?: () => PricedUsage): Promise<void> {
  if (request.apiKey?.policy === undefined) return;
  if (request.admitLateCall === undefined) throw new Error(`route ${request.routeOptions.url ?? ''} does not declare a 'late' model in its admission config`);
  await request.admitLateCall(model, bound);
}

/** The key's rate limit, in an `admission` span while tracing is on (the limiter's Redis calls are its children). */
function admitRequest(admission: Admission, key: AdmittedKey): Promise<void> {
  if (platformTracer() === undefined) return admission.admitRequest(key);
  return inSpan('admission', () => admission.admitRequest(key), { 'model_platform.admission': 'rate', 'model_platform.key_id': key.id });
}

/** A model call's admission (models, credit, quotas, concurrency), in an `admission` span while tracing is on. */
function admitCall(
  admission: Admission,
  key: AdmittedKey,
  model: string,
  bound: (() => PricedUsage) | undefined,
  countRate: boolean,
): Promise<AdmissionTicket | undefined> {
  if (platformTracer() === undefined) return admission.admitCall(key, model, bound, countRate);
  return inSpan('admission', () => admission.admitCall(key, model, bound, countRate), {
    'model_platform.admission': 'call',
    'model_platform.key_id': key.id,
    'gen_ai.request.model': model,
  });
}

function ruleOf(request: FastifyRequest): RouteAdmission {
  return routeOf(request).config.admission ?? rateLimitOnly;
}

/**
 * The request's ticket: a stream holds its slot until the response ends. Its reservation settles
 * when the handler is done (settleAfterHandler); a request refused before its handler ran (a
 * later hook) settles at the response's end, with nothing recorded, so nothing charged.
 */
function keepTicket(request: FastifyRequest, ticket: AdmissionTicket): void {
  request.admissionTicket = ticket;
  request.responseEnd.onEnd(() => {
    void ticket.finish();
    if (!handlerStarted.has(request)) void ticket.settle();
  });
}

/** Requests whose handler has started: their ticket settles when it is done, not at the response's end. */
const handlerStarted = new WeakSet<FastifyRequest>();

/**
 * Wraps the route's handler so that the call's credit reservation settles once the handler is
 * done, when every usage record of the call has been made: a stream cut by its client records
 * what was produced after the response ended. A request with no ticket when its handler starts,
 * and no way to get one in it (not a `late` route), has nothing to settle: its handler runs as
 * it is, without a wrapper's promise.
 */
function settleAfterHandler(route: RouteOptions): void {
  const handler = route.handler as (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown;
  const settling = async function settlingHandler(this: unknown, request: FastifyRequest, reply: FastifyReply) {
    handlerStarted.add(request);
    try {
      return await handler.call(this, request, reply);
    } finally {
      if (request.admissionTicket !== undefined) void request.admissionTicket.settle();
    }
  };
  route.handler = function admittedHandler(this: unknown, request: FastifyRequest, reply: FastifyReply) {
    if (request.admissionTicket === undefined && request.admitLateCall === undefined) return handler.call(this, request, reply);
    return settling.call(this, request, reply);
  } as RouteOptions['handler'];
}
