import { createHmac } from 'node:crypto';

/** Signs a platform JWT the way the official clients do (HS256, `sign_type: SIGN`). */
export function signPlatformJwt(payload: Record<string, unknown>, secret: string, header: Record<string, unknown> = {}): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signingInput = `${encode({ alg: 'HS256', sign_type: 'SIGN', typ: 'JWT', ...header })}.${encode(payload)}`;
  return `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
}
