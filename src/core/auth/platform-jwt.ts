import { createHmac, timingSafeEqual } from 'node:crypto';

/** The parts of a platform JWT (docs/wire.md §5) before its signature is checked. */
export interface DecodedJwt {
  readonly apiKeyId: string;
  /**
   * Expiry in milliseconds, whatever unit the client used; undefined when `exp` is absent or is
   * not a number in an accepted unit (every official client sends one, and a token without a
   * readable expiry would be valid for ever).
   */
  readonly expiresAtMs: number | undefined;
  readonly signingInput: string;
  readonly signature: Buffer;
}

/** Decodes header and payload; undefined when the text is not an HS256 JWT carrying `api_key`. */
export function decodePlatformJwt(token: string): DecodedJwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [headerText, payloadText, signatureText] = parts as [string, string, string];
  const header = parseJsonObject(headerText);
  const payload = parseJsonObject(payloadText);
  if (header === undefined || payload === undefined || header['alg'] !== 'HS256') return undefined;
  const apiKeyId = payload['api_key'];
  if (typeof apiKeyId !== 'string' || apiKeyId === '') return undefined;
  const exp = payload['exp'];
  return {
    apiKeyId,
    expiresAtMs: typeof exp === 'number' && Number.isFinite(exp) && exp <= maxExp ? toMilliseconds(exp) : undefined,
    signingInput: `${headerText}.${payloadText}`,
    signature: Buffer.from(signatureText, 'base64url'),
  };
}

/** True when the signature is HMAC-SHA256 of the signing input with the key's secret. */
export function jwtSignatureValid(jwt: DecodedJwt, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(jwt.signingInput).digest();
  return expected.length === jwt.signature.length && timingSafeEqual(expected, jwt.signature);
}

/** The largest `exp` read in any accepted unit: microseconds up to about the year 5100. */
const maxExp = 1e17;

/** Clients send `exp` in seconds, milliseconds or (the Node SDK) microseconds: decide by magnitude. */
function toMilliseconds(exp: number): number {
  if (exp > 1e14) return exp / 1000;
  if (exp > 1e11) return exp;
  return exp * 1000;
}

function parseJsonObject(base64url: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(base64url, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
