import { ApiError, invalidField } from '../../core/errors/api-error.ts';
import type { DocumentFormat } from '../../core/ocr/layout-parser.ts';
import type { GuardedFetcher } from '../../tools/fetch/guarded-fetcher.ts';
import { parseInlineData } from '../../core/media/inline-data.ts';
import { checkDocument } from './layout-parsing.checks.ts';
import { maxPdfBytes } from './layout-parsing.schema.ts';

/** A 50 MB PDF from a slow host takes a while; past this the host is the problem. */
const documentFetchTimeoutMs = 120_000;

export interface LayoutDocument {
  readonly bytes: Uint8Array;
  readonly format: DocumentFormat;
}

/**
 * The bytes of the `file` field: an http(s) URL fetched through the SSRF guard (capped at the
 * PDF limit while it streams), or inline base64. The format comes from the bytes, and its size
 * limit is checked on them (10 MB for an image, 50 MB for a PDF).
 */
export async function readLayoutDocument(file: string, fetcher: GuardedFetcher, signal: AbortSignal): Promise<LayoutDocument> {
  const bytes = /^https?:\/\//i.test(file) ? await fetchDocument(file, fetcher, signal) : decodeInline(file);
  return { bytes, format: checkDocument(bytes.subarray(0, 12), bytes.length) };
}

function decodeInline(file: string): Uint8Array {
  const inline = parseInlineData(file);
  // layout-parsing.checks already refused what is not base64; this is its decoding.
  if (inline === undefined) throw invalidField('file', 'is not valid base64 content');
  return Buffer.from(inline.base64, 'base64');
}

async function fetchDocument(url: string, fetcher: GuardedFetcher, signal: AbortSignal): Promise<Uint8Array> {
  let fetched;
  try {
    fetched = await fetcher.fetch(url, {
      timeoutMs: documentFetchTimeoutMs,
      signal,
      maxBytes: maxPdfBytes,
      headers: { accept: 'application/pdf,image/png,image/jpeg;q=0.9,*/*;q=0.5' },
    });
  } catch (error) {
    // The fetcher names the field `url`; here it is `file`.
    if (error instanceof ApiError) throw new ApiError(error.code, error.message.replace(/^Invalid parameter 'url'/, "Invalid parameter 'file'"));
    throw error;
  }
  if (fetched.status < 200 || fetched.status > 299) throw invalidField('file', `fetching ${url} answered HTTP ${fetched.status}`);
  return fetched.body;
}
