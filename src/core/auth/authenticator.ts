import { LRUCache } from 'lru-cache';
import { ApiError } from '../errors/api-error.ts';
import type { KeyPolicy } from '../limits/key-policy.ts';
import { parseApiKey, sameSecret, secretMatches } from './api-key.ts';
import { decodePlatformJwt, jwtSignatureValid } from './platform-jwt.ts';
import type { SecretBox } from './secret-box.ts';
import type { KeyLookup, StoredKey } from './stored-key.ts';

export interface AuthenticatedKey {
  readonly id: string;
  readonly name: string | null;
  /** The key's limits, as cached with the key (a policy change reaches other processes within the cache TTL). */
  readonly policy: KeyPolicy | undefined;
}

export interface AuthenticatorOptions {
  /** How long a looked-up key is trusted before the store is asked again (revocations by another process). */
  readonly cacheTtlMs?: number;
  /**
   * How long after `exp` a JWT is still taken. Three minutes: the Node SDK 0.1.x sets `exp` only
   * 0.18 s after issuing (µs arithmetic) yet reuses the token for 150 s.
   */
  readonly clockSkewMs?: number;
  readonly now?: () => number;
}

interface CacheEntry {
  readonly key: StoredKey | undefined;
  readonly fetchedAt: number;
  secret?: string;
  /** `secret` as UTF-8, kept for the comparison on every request. */
  secretBytes?: Buffer;
  /** What a request authenticated with this entry's key gets, made once. */
  authenticated?: AuthenticatedKey;
}

/** Keys kept in memory at most; past it the least recently used goes first. */
const maxCacheEntries = 10_000;

/**
 * Checks an Authorization header value (docs/wire.md §5): `Bearer <id>.<secret>`,
 * `Bearer <jwt>` or a bare `<jwt>`. Lookups are cached briefly in memory to keep the hot path lean.
 */
export class Authenticator {
  readonly #lookup: KeyLookup;
  readonly #box: SecretBox;
  readonly #cacheTtlMs: number;
  readonly #clockSkewMs: number;
  readonly #now: () => number;
  readonly #cache = new LRUCache<string, CacheEntry>({ max: maxCacheEntries });

  constructor(lookup: KeyLookup, box: SecretBox, options: AuthenticatorOptions = {}) {
    this.#lookup = lookup;
    this.#box = box;
    this.#cacheTtlMs = options.cacheTtlMs ?? 1000;
    this.#clockSkewMs = options.clockSkewMs ?? 180_000;
    this.#now = options.now ?? Date.now;
  }

  async authenticate(header: string | undefined): Promise<AuthenticatedKey> {
    const token = tokenOf(header);
    const dots = token.split('.').length - 1;
    if (dots === 1) return this.#checkRawKey(token);
    if (dots === 2) return this.#checkJwt(token);
    throw new ApiError('1002', 'The Authorization token is invalid: expected an API key <id>.<secret> or a JWT.');
  }

  /**
   * The same check without waiting, for the request hook: the key when the header is a raw API
   * key whose entry is cached and whose secret was seen valid before (the common case of a busy
   * key); undefined when `authenticate` has to look further (it then decides, errors included).
   */
  authenticateFromCache(header: string | undefined): AuthenticatedKey | undefined {
    const parts = parseApiKey(tokenOf(header, false));
    const entry = parts === undefined ? undefined : this.#freshEntry(parts.id);
    const key = entry?.key;
    if (parts === undefined || key === undefined || key.revokedAt !== null || entry?.secret === undefined) return undefined;
    entry.secretBytes ??= Buffer.from(entry.secret, 'utf8');
    if (!sameSecret(parts.secret, entry.secretBytes)) return undefined;
    entry.authenticated ??= authenticated(key);
    return entry.authenticated;
  }

  /** Drops a key from the cache so a revocation in this process takes effect at once. */
  forget(id: string): void {
    this.#cache.delete(id);
  }

  async #checkRawKey(token: string): Promise<AuthenticatedKey> {
    const parts = parseApiKey(token);
    if (parts === undefined) throw new ApiError('1002');
    const entry = await this.#entry(parts.id);
    const key = usable(entry.key);
    // A secret seen valid before is compared as it is; the hash is computed only the first time.
    const valid = entry.secret === undefined ? secretMatches(parts.secret, key.secretHash) : sameSecret(parts.secret, entry.secret);
    if (!valid) throw new ApiError('1000', 'Authentication failed: invalid API key.');
    entry.secret = parts.secret;
    return authenticated(key);
  }

  async #checkJwt(token: string): Promise<AuthenticatedKey> {
    const jwt = decodePlatformJwt(token);
    if (jwt === undefined) throw new ApiError('1002', 'The Authorization token is invalid: not an HS256 JWT with an api_key claim.');
    const entry = await this.#entry(jwt.apiKeyId);
    const key = usable(entry.key);
    entry.secret ??= this.#box.open(key.secretSealed);
    if (!jwtSignatureValid(jwt, entry.secret)) throw new ApiError('1004', 'The Authorization token signature does not verify.');
    if (jwt.expiresAtMs === undefined) {
      throw new ApiError('1002', 'The Authorization token is invalid: its exp claim must be a number (seconds, milliseconds or microseconds since the epoch).');
    }
    if (jwt.expiresAtMs + this.#clockSkewMs < this.#now()) throw new ApiError('1003');
    return authenticated(key);
  }

  #freshEntry(id: string): CacheEntry | undefined {
    const cached = this.#cache.get(id);
    return cached !== undefined && this.#now() - cached.fetchedAt < this.#cacheTtlMs ? cached : undefined;
  }

  async #entry(id: string): Promise<CacheEntry> {
    const cached = this.#freshEntry(id);
    if (cached !== undefined) return cached;
    const now = this.#now();
    const entry: CacheEntry = { key: await this.#lookup.findKey(id), fetchedAt: now };
    this.#cache.set(id, entry);
    return entry;
  }
}

/** The token of an Authorization header: `Bearer ` dropped; an empty one is refused unless `required` is false. */
function tokenOf(header: string | undefined, required = true): string {
  // The common spelling, `Bearer ` and a visible ASCII character, without the regular expression
  // (this runs on every request).
  const first = header?.startsWith('Bearer ') === true ? header.charCodeAt(7) : 0;
  const token = first > 32 && first < 127 ? (header as string).slice(7).trimEnd() : (header ?? '').trim().replace(/^Bearer(\s+|$)/i, '');
  if (token === '' && required) throw new ApiError('1001');
  return token;
}

function authenticated(key: StoredKey): AuthenticatedKey {
  return { id: key.id, name: key.name, policy: key.policy };
}

function usable(key: StoredKey | undefined): StoredKey {
  if (key === undefined) throw new ApiError('1000', 'Authentication failed: unknown API key.');
  if (key.revokedAt !== null) throw new ApiError('1000', 'Authentication failed: the API key has been revoked.');
  return key;
}
