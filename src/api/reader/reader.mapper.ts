import type { ReadOptions, ReadResult } from '../../core/web/web-reader.ts';
import { generateRequestId } from '../../http/request-id.ts';
import { readerTimeoutSeconds } from './reader.checks.ts';
import type { ReaderRequest, ReaderResponse } from './reader.schema.ts';
import type { Static } from '@sinclair/typebox';

/** Default fetch timeout (docs/wire.md §1.1). */
const defaultReaderTimeoutSeconds = 20;

/**
 * The `model` the reader answers with. The reader is not a model of the catalog and clients do
 * not send one; this names the engine so a response can be told apart from a model's.
 */
export const readerModelName = 'web-reader';

/** Wire body → ReadOptions, with the documented defaults for what the client left out. */
export function toReadOptions(body: ReaderRequest, signal: AbortSignal): ReadOptions {
  return {
    timeoutMs: Math.round((readerTimeoutSeconds(body) ?? defaultReaderTimeoutSeconds) * 1000),
    noCache: body.no_cache ?? false,
    returnFormat: body.return_format ?? 'markdown',
    retainImages: body.retain_images ?? true,
    noGfm: body.no_gfm ?? false,
    keepImgDataUrl: body.keep_img_data_url ?? false,
    withImagesSummary: body.with_images_summary ?? false,
    withLinksSummary: body.with_links_summary ?? false,
    signal,
  };
}

/**
 * ReadResult → the wire result. `external.stylesheet` maps each stylesheet URL to
 * `{type: "text/css"}` (plus `media` when the page set one); `metadata` carries every meta
 * name/property of the page; `images` and `links` appear only when asked for.
 */
export function toReaderResponse(result: ReadResult, requestId: string): Static<typeof ReaderResponse> {
  // The URLs are the page's: Object.fromEntries makes each an own property, whatever its text.
  const stylesheet: Record<string, { type: string; media?: string }> = Object.fromEntries(
    Object.entries(result.stylesheets).map(([href, media]) => [href, media === '' ? { type: 'text/css' } : { type: 'text/css', media }]),
  );
  return {
    id: generateRequestId(),
    created: Math.floor(Date.now() / 1000),
    request_id: requestId,
    model: readerModelName,
    reader_result: {
      content: result.content,
      description: result.description,
      title: result.title,
      url: result.url,
      external: { stylesheet },
      metadata: { ...result.metadata },
      ...(result.images === undefined ? {} : { images: { ...result.images } }),
      ...(result.links === undefined ? {} : { links: { ...result.links } }),
      ...(result.publishedTime === undefined ? {} : { publishedTime: result.publishedTime }),
    },
  };
}
