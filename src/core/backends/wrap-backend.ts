import { engineMethods, type BackendCapabilities, type EngineMethod, type EngineRequest } from '../models/capability.ts';
import type { Backend } from './backend.ts';

/**
 * What a wrapper does around every engine method (the routing: routed-backend.ts; the metrics:
 * instrument-backend.ts). `wrapBackend` gives each method of the capability table the wrapper's
 * `call` or `stream`, so a call on the wrapped backend steps straight into one of these two.
 */
export interface EngineMethodWrapper {
  /** Whether the wrapped backend has `method`: one it lacks stays absent, so "not available" answers are unchanged. */
  offers(method: EngineMethod): boolean;
  call(method: EngineMethod, request: EngineRequest): Promise<unknown>;
  stream(method: EngineMethod, request: EngineRequest): AsyncIterable<unknown>;
}

/** The capability members of a backend whose every method goes through `wrapper`, built from the capability table. */
export function wrapBackend(wrapper: EngineMethodWrapper): BackendCapabilities {
  const members = new Map<string, Record<string, (request: EngineRequest) => unknown>>();
  for (const method of engineMethods) {
    if (!wrapper.offers(method)) continue;
    const methods = members.get(method.member) ?? {};
    methods[method.name] =
      method.kind === 'call' ? (request: EngineRequest) => wrapper.call(method, request) : (request: EngineRequest) => wrapper.stream(method, request);
    members.set(method.member, methods);
  }
  // Each member's methods are those of its interface, as the table lists them (checked where the table is built).
  return Object.fromEntries(members) as BackendCapabilities;
}

/** Whether `backend` itself (an engine, or a wrapper around one) has `method`. */
export function hasEngineMethod(backend: Backend, method: EngineMethod): boolean {
  return typeof memberOf(backend, method)?.[method.name] === 'function';
}

/** Calls `method` of `backend` itself: where every wrapped call finally reaches the engine. */
export function callEngine(backend: Backend, method: EngineMethod, request: EngineRequest): Promise<unknown> {
  return invoke(backend, method, request) as Promise<unknown>;
}

/** Opens the stream of `method` of `backend` itself. */
export function streamEngine(backend: Backend, method: EngineMethod, request: EngineRequest): AsyncIterable<unknown> {
  return invoke(backend, method, request) as AsyncIterable<unknown>;
}

function invoke(backend: Backend, method: EngineMethod, request: EngineRequest): unknown {
  const member = memberOf(backend, method);
  const engineMethod = member?.[method.name];
  if (typeof engineMethod !== 'function') throw new TypeError(`the engine has no ${method.member}.${method.name}`);
  // Called on its member, as the engine's own code would: a class keeps its `this`.
  return (engineMethod as (request: EngineRequest) => unknown).call(member, request);
}

function memberOf(backend: Backend, method: EngineMethod): Readonly<Record<string, unknown>> | undefined {
  return backend[method.member] as Readonly<Record<string, unknown>> | undefined;
}
