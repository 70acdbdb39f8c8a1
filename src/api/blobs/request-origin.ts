import type { FastifyRequest } from 'fastify';

/**
 * The origin the client reached this server at (protocol and Host header), for absolute download
 * URLs. Behind a proxy that rewrites Host, MODEL_PLATFORM_PUBLIC_URL overrides it (BlobUrlSigner).
 */
export function requestOrigin(request: FastifyRequest): string {
  const host = request.host === '' ? 'localhost' : request.host;
  return `${request.protocol}://${host}`;
}
