import type { Server } from 'node:http';
import type { Settings } from '../core/config/settings.ts';
import { watchBodyIdle } from './body-idle-timeout.ts';
import { capConnectionsPerAddress } from './connection-cap.ts';

/**
 * How long the server waits for a client, and how many connections one client may hold: the
 * defences against slow clients (slowloris, trickled bodies) that would otherwise keep sockets open
 * forever. None of them limits how long an answer takes to send: a long stream or a slow engine
 * call is bounded by the engine's own timeouts (`timeoutMs`), not here.
 */
export interface ServerLimits {
  /** From the connection (or the first byte of the next request on it) to the end of the headers. */
  readonly headersTimeoutMs: number;
  /** From the same start to the last byte of the body; 0: no limit. Never applies to the answer. */
  readonly requestTimeoutMs: number;
  /** Longest pause in the arrival of a request body; 0: no limit. */
  readonly bodyIdleTimeoutMs: number;
  /** How long a kept-alive connection may wait for its next request. */
  readonly keepAliveTimeoutMs: number;
  /** Connections one client address may hold open at once; 0: no cap. */
  readonly maxConnectionsPerAddress: number;
}

export const defaultServerLimits: ServerLimits = {
  headersTimeoutMs: 30_000,
  requestTimeoutMs: 300_000,
  bodyIdleTimeoutMs: 30_000,
  // Over the 60 s idle timeout of common load balancers, so they close idle connections first.
  keepAliveTimeoutMs: 72_000,
  maxConnectionsPerAddress: 0,
};

export function serverLimitsFromSettings(settings: Settings): ServerLimits {
  return {
    headersTimeoutMs: settings.headersTimeoutSeconds * 1000,
    requestTimeoutMs: settings.requestTimeoutSeconds * 1000,
    bodyIdleTimeoutMs: settings.bodyIdleTimeoutSeconds * 1000,
    keepAliveTimeoutMs: settings.keepAliveTimeoutSeconds * 1000,
    maxConnectionsPerAddress: settings.maxConnectionsPerAddress,
  };
}

/** The Fastify (and Node `http.Server`) options that carry the limits. */
export function serverOptions(limits: ServerLimits) {
  // Node refuses a headers timeout over the request timeout; the request's whole time bounds its headers anyway.
  const headersTimeout = limits.requestTimeoutMs > 0 ? Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) : limits.headersTimeoutMs;
  const shortest = limits.requestTimeoutMs > 0 ? Math.min(headersTimeout, limits.requestTimeoutMs) : headersTimeout;
  return {
    http: {
      headersTimeout,
      requestTimeout: limits.requestTimeoutMs,
      // Node checks the two timeouts on this period (30 s unless set): a quarter of the shortest keeps the overshoot small.
      connectionsCheckingInterval: Math.min(5000, Math.max(100, Math.floor(shortest / 4))),
      // The missing Host header is refused by identifyAndAuthenticate, in the platform's body (Node's refusal has none).
      requireHostHeader: false,
    },
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // No socket-wide idle timeout: it would also cut an answer that waits on a slow engine (see watchBodyIdle).
    connectionTimeout: 0,
  };
}

/** What the options cannot say: the per-address cap and the body idle timeout, on the app's server. */
export function installServerLimits(server: Server, limits: ServerLimits): void {
  capConnectionsPerAddress(server, limits.maxConnectionsPerAddress);
  watchBodyIdle(server, limits.bodyIdleTimeoutMs);
}
