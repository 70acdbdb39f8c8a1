import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Seals key secrets with AES-256-GCM. Raw keys are checked against a hash, but a JWT is an HMAC
 * made with the secret itself, so verifying one needs the secret back: it is kept sealed with the
 * server's master key (never in clear in the database, never logged).
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
    this.#key = masterKey;
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
  }

  open(sealed: string): string {
    const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    if (iv === undefined || tag === undefined || body === undefined) throw new Error('malformed sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  }
}
