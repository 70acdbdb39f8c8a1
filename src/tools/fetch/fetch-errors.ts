import { ApiError } from '../../core/errors/api-error.ts';
import type { BlockedAddressError } from './ssrf-guard.ts';

/**
 * The fetch failures a caller sees, each with its own wording. URL problems (refused address,
 * too large, unknown host) are 1214 on `url`: sending the same URL again cannot succeed. Network
 * trouble (timeout, refused connection) is 1234, which clients may retry.
 */

/** What went wrong with a fetch, for a caller that tells its own story of it (an engine's media URL is not the client's). */
export type FetchFailureReason = 'blocked-address' | 'unsupported-scheme' | 'too-many-redirects' | 'host-not-found' | 'too-large' | 'timeout' | 'unreachable';

/** A failed fetch as the client who gave the URL sees it, and why it failed. */
export class FetchError extends ApiError {
  readonly reason: FetchFailureReason;

  constructor(reason: FetchFailureReason, code: '1214' | '1234', message: string) {
    super(code, message);
    this.reason = reason;
  }
}

/** 1214: the guard refused the address; the message names the URL, not the address it resolved to. */
export function blockedAddress(requested: string, redirectedTo: string | undefined, error: BlockedAddressError): FetchError {
  const verb = error.literal ? 'is' : 'resolves to';
  const subject = redirectedTo === undefined ? requested : `${requested} redirects to ${redirectedTo}, which`;
  return new FetchError(
    'blocked-address',
    '1214',
    `Invalid parameter 'url': ${subject} ${verb} a private address; the server does not fetch private, loopback, link-local or reserved addresses unless its operator lists them in the config file's fetch.allow (CIDRs or host names).`,
  );
}

/** 1214: a URL that is not http(s), asked for or redirected to. */
export function unsupportedScheme(requested: string, redirectedTo: string | undefined): FetchError {
  const subject = redirectedTo === undefined ? requested : `${requested} redirects to ${redirectedTo}, which`;
  return new FetchError('unsupported-scheme', '1214', `Invalid parameter 'url': ${subject} is not an http or https URL.`);
}

export function tooManyRedirects(requested: string, limit: number): FetchError {
  return new FetchError('too-many-redirects', '1214', `Invalid parameter 'url': ${requested} redirects more than ${limit} times.`);
}

export function hostNotFound(requested: string, hostname: string): FetchError {
  return new FetchError('host-not-found', '1214', `Invalid parameter 'url': the host name ${hostname} of ${requested} does not resolve.`);
}

/** 1214: the body passed the size cap (while streaming, or by its Content-Length). */
export function tooLarge(requested: string, maxBytes: number): FetchError {
  return new FetchError(
    'too-large',
    '1214',
    `Invalid parameter 'url': ${requested} is too large: more than ${formatBytes(maxBytes)}, the most the server fetches.`,
  );
}

/** 1234: the whole fetch (every redirect and the body) did not finish in time. */
export function fetchTimedOut(requested: string, timeoutMs: number): FetchError {
  return new FetchError('timeout', '1234', `Network error: no answer from ${requested} within ${formatSeconds(timeoutMs)} s.`);
}

/** 1234: the connection failed (refused, reset, TLS). */
export function unreachable(requested: string, detail: string): FetchError {
  return new FetchError('unreachable', '1234', `Network error: could not fetch ${requested} (${detail}).`);
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;
}

function formatSeconds(milliseconds: number): string {
  return String(Math.round(milliseconds / 100) / 10);
}
