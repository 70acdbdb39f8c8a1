import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureCheck = 'valid' | 'expired' | 'invalid';

/**
 * Signed, expiring download URLs served by this server (`GET /blobs/<key>?expires=&signature=`):
 * HMAC-SHA256 over the key and the expiry with a secret derived from the master key, so every
 * node of a fleet that shares the master key accepts the others' URLs.
 */
export class BlobUrlSigner {
  readonly #secret: Buffer;
  readonly #ttlSeconds: number;
  readonly #publicUrl: string | undefined;

  /** `publicUrl`, when set, is used instead of the origin of the request a URL is made for. */
  constructor(masterKey: Buffer, ttlSeconds: number, publicUrl: string | undefined) {
    // A key of its own, so a signature can never double as anything else sealed with the master key.
    this.#secret = createHmac('sha256', masterKey).update('model-platform blob download url v1').digest();
    this.#ttlSeconds = ttlSeconds;
    this.#publicUrl = publicUrl;
  }

  url(key: string, origin: string, now: number = Date.now()): string {
    const expires = Math.floor(now / 1000) + this.#ttlSeconds;
    const base = (this.#publicUrl ?? origin).replace(/\/+$/, '');
    const path = key.split('/').map(encodeURIComponent).join('/');
    return `${base}/blobs/${path}?expires=${expires}&signature=${this.#sign(key, expires)}`;
  }

  verify(key: string, expires: string | undefined, signature: string | undefined, now: number = Date.now()): SignatureCheck {
    if (expires === undefined || signature === undefined || !/^\d{1,12}$/.test(expires)) return 'invalid';
    const expected = Buffer.from(this.#sign(key, Number(expires)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 <= now ? 'expired' : 'valid';
  }

  #sign(key: string, expires: number): string {
    return createHmac('sha256', this.#secret).update(`${key}\n${expires}`).digest('base64url');
  }
}
