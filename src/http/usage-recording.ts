import type { FastifyRequest } from 'fastify';
import type { Admission } from '../core/limits/admission.ts';
import { callUsage, type CallUsage } from '../core/usage/call-usage.ts';
import type { UsageRecorder } from '../core/usage/usage-recorder.ts';
import type { App } from './app-types.ts';
import { routeOf } from './route-of.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The usage ledger's name for this route's calls (`chat.completions`); every route that records usage declares it. */
    usage?: string;
  }
  interface FastifyRequest {
    /**
     * Records what this call used and what it cost: in the usage ledger (batched, off the request
     * path), charged against the call's credit reservation, and through the recorder against the
     * key's token quotas.
     */
    recordUsage(used: CallUsage): void;
  }
}

/**
 * The one place usage records are made for requests: the key, the endpoint (the route's
 * `config.usage`), the request id and the time come from the request; the handler gives only
 * what it measured (the model it ran, tokens, units). The cost is priced now, at the prices in
 * force, through the call's admission ticket when it has one (its reservation caps the charge).
 */
export function installUsageRecording(app: App, recorder: UsageRecorder, admission: Admission): void {
  app.decorateRequest('recordUsage', function recordUsage(this: FastifyRequest, used: CallUsage): void {
    const endpoint = routeOf(this).config.usage;
    if (endpoint === undefined) throw new Error(`route ${this.routeOptions.url ?? ''} records usage without a usage endpoint in its config`);
    const record = callUsage({ keyId: this.apiKey?.id ?? '', endpoint, requestId: this.requestId }, used);
    const ticket = this.admissionTicket;
    recorder.record(ticket === undefined ? admission.priced(record, this.apiKey?.policy) : ticket.price(record));
  });
}
