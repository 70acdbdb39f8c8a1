import { GuardedFetcher } from './guarded-fetcher.ts';
import { SsrfGuard } from './ssrf-guard.ts';

/** Media a client gives by URL: at most this many bytes each (the chat body itself is capped at 32 MB). */
const maxRemoteMediaBytes = 20 * 1024 * 1024;

/**
 * The fetcher of media given by URL in chat and tokenizer messages (sync and async), through the
 * SSRF guard with the config's `fetch.allow`. Whoever creates one closes it.
 */
export function createChatMediaFetcher(allow: readonly string[]): GuardedFetcher {
  return new GuardedFetcher({ guard: new SsrfGuard({ allow }), maxBytes: maxRemoteMediaBytes, userAgent: 'model-platform (chat media)' });
}
