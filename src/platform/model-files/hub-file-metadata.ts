import { errors, request } from 'undici';
import { hubFileUrl, type HfFileReference } from './hf-uri.ts';

/** What the hub says of a file before it is fetched. */
export interface HubFileMetadata {
  /** Where the bytes are (the hub's URL; the downloader follows its redirect to the CDN). */
  readonly url: string;
  /** Bytes of the file, when the hub states them (X-Linked-Size for LFS files, else Content-Length). */
  readonly size: number | undefined;
  /** SHA-256 in hex the hub publishes for LFS files (X-Linked-Etag); other files have only a git hash. */
  readonly sha256: string | undefined;
}

/** A hub answer or silence that makes the file unobtainable, explained in one line naming the URI. */
export class HubFileError extends Error {
  readonly kind: 'unauthorized' | 'not-found' | 'unreachable' | 'refused';
  constructor(kind: HubFileError['kind'], message: string) {
    super(message);
    this.name = 'HubFileError';
    this.kind = kind;
  }
}

const metadataTimeoutMs = 15_000;
/** Hops over the hub's own redirects (a renamed repository); the CDN redirect ends the walk. */
const maxHubRedirects = 3;

/**
 * Asks the hub (HEAD, redirects not followed) for the file's size and hash. The real hub answers
 * an LFS file with a redirect to its CDN that carries X-Linked-Size and X-Linked-Etag; a renamed
 * repository answers a redirect on the hub itself, which is followed.
 */
export async function readHubFileMetadata(endpoint: string, token: string | undefined, reference: HfFileReference): Promise<HubFileMetadata> {
  const url = hubFileUrl(endpoint, reference);
  const hubOrigin = new URL(url).origin;
  let current = url;
  for (let hop = 0; hop <= maxHubRedirects; hop += 1) {
    const response = await headRequest(current, token, reference, endpoint);
    const linkedSize = header(response.headers, 'x-linked-size');
    const linkedEtag = header(response.headers, 'x-linked-etag')?.replace(/^W\//, '').replace(/"/g, '');
    const location = header(response.headers, 'location');
    const { statusCode } = response;
    if (statusCode === 401 || statusCode === 403) {
      throw new HubFileError(
        'unauthorized',
        `${reference.uri}: the hub refused access (HTTP ${statusCode}); the repository is gated or private: accept its terms on the hub and set HF_TOKEN to a token that may read it`,
      );
    }
    if (statusCode === 404) {
      throw new HubFileError('not-found', `${reference.uri}: not found on the hub (HTTP 404); check the owner, repository, file name and revision`);
    }
    const redirect = statusCode >= 300 && statusCode < 400 && location !== undefined;
    if (redirect && linkedSize === undefined && new URL(location, current).origin === hubOrigin) {
      current = new URL(location, current).href;
      continue;
    }
    if (statusCode !== 200 && !redirect) {
      throw new HubFileError('refused', `${reference.uri}: the hub answered HTTP ${statusCode}; try again later (pull resumes what it has)`);
    }
    const sizeText = linkedSize ?? header(response.headers, 'content-length');
    const size = sizeText !== undefined && /^\d+$/.test(sizeText) ? Number(sizeText) : undefined;
    return { url: current, size, sha256: linkedEtag !== undefined && /^[0-9a-f]{64}$/.test(linkedEtag) ? linkedEtag : undefined };
  }
  throw new HubFileError('refused', `${reference.uri}: the hub redirected more than ${maxHubRedirects} times`);
}

async function headRequest(url: string, token: string | undefined, reference: HfFileReference, endpoint: string) {
  try {
    const response = await request(url, {
      method: 'HEAD',
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      headersTimeout: metadataTimeoutMs,
      bodyTimeout: metadataTimeoutMs,
      signal: AbortSignal.timeout(metadataTimeoutMs),
    });
    await response.body.dump();
    return response;
  } catch (error) {
    const why = error instanceof errors.UndiciError || error instanceof Error ? ((error as { code?: string }).code ?? error.message) : String(error);
    throw new HubFileError('unreachable', `${reference.uri}: cannot reach the hub at ${endpoint} (${why}); check the network or set HF_ENDPOINT to a mirror`);
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
