import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A key as clients send it: `<id>.<secret>`. */
export interface ApiKeyParts {
  readonly id: string;
  readonly secret: string;
}

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A new key in the platform's format: 32 hex characters, a dot, 16 alphanumerics. */
export function generateApiKey(): ApiKeyParts {
  const id = randomBytes(16).toString('hex');
  const secret = Array.from(randomBytes(16), (byte) => alphabet[byte % alphabet.length]).join('');
  return { id, secret };
}

/** Splits `<id>.<secret>`; undefined unless there is exactly one dot with text on both sides. */
export function parseApiKey(text: string): ApiKeyParts | undefined {
  const dot = text.indexOf('.');
  if (dot <= 0 || dot === text.length - 1 || text.includes('.', dot + 1)) return undefined;
  return { id: text.slice(0, dot), secret: text.slice(dot + 1) };
}

export function formatApiKey(key: ApiKeyParts): string {
  return `${key.id}.${key.secret}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function secretMatches(secret: string, expectedHash: string): boolean {
  const actual = Buffer.from(hashSecret(secret), 'hex');
  const expected = Buffer.from(expectedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Constant-time comparison of two secrets in clear (the known one may be given as its UTF-8 bytes). */
export function sameSecret(given: string, known: string | Buffer): boolean {
  const left = Buffer.from(given, 'utf8');
  const right = typeof known === 'string' ? Buffer.from(known, 'utf8') : known;
  return left.length === right.length && timingSafeEqual(left, right);
}
