import type { PricedUsage } from './model-price.ts';

/**
 * The most output a chat call may ask for (the chat schema's max_tokens ceiling): what is reserved
 * for the answer of a call that does not set max_tokens.
 */
const maxOutputTokens = 131_072;

/**
 * The most a chat call can use, as far as it is known before the engine runs: its input at one
 * token per byte of the request (a tokenizer's token covers at least one byte of text), its output
 * at `maxTokens` (else the ceiling), and one search when it carries tools. Images given by URL are
 * not counted: what they cost beyond this is charged only up to the reservation.
 */
export function chatBound(request: unknown, maxTokens: number | undefined): PricedUsage {
  return {
    promptTokens: Buffer.byteLength(JSON.stringify(request) ?? ''),
    completionTokens: maxTokens ?? maxOutputTokens,
    cachedTokens: 0,
    units: { searches: 1 },
  };
}

/** A bound of one unit of work besides the call itself (an image, a search, a page read). */
export function unitsBound(units: PricedUsage['units']): PricedUsage {
  return { promptTokens: 0, completionTokens: 0, cachedTokens: 0, ...(units === undefined ? {} : { units }) };
}

/** The most an async task can use: one image or one video, or a chat job's bound. */
export function taskBound(kind: string, request: unknown): PricedUsage {
  if (kind === 'image') return unitsBound({ images: 1 });
  if (kind === 'video') return unitsBound({ videos: 1 });
  const maxTokens = typeof request === 'object' && request !== null ? (request as { readonly maxTokens?: unknown }).maxTokens : undefined;
  return chatBound(request, typeof maxTokens === 'number' ? maxTokens : undefined);
}

/**
 * Pages reserved for a layout-parsing call that names no page range: its page count is known only
 * once the engine has read the document. Pages beyond it are charged only up to the reservation.
 */
const unrangedDocumentPages = 100;

/** The most a layout-parsing call can use: its page range, else `unrangedDocumentPages`. */
export function layoutBound(startPage: unknown, endPage: unknown): PricedUsage {
  const pages = typeof endPage === 'number' ? endPage - (typeof startPage === 'number' ? startPage : 1) + 1 : unrangedDocumentPages;
  return unitsBound({ pages: Math.max(1, pages) });
}
