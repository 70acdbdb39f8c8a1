import { createHash } from 'node:crypto';
import type { BlobStore } from '../../core/blobs/blob-store.ts';
import { pixelSize, sameSize, type PageSize } from './page-sizes.ts';
import type { SlideRenderer } from './slide-renderer.ts';
import type { SlidePlan } from './slide-plan.ts';
import { planDocument } from './slide-templates.ts';

/** A stored PNG page and the size it was drawn at, in points. */
export interface StoredPage {
  readonly key: string;
  readonly width: number;
  readonly height: number;
}

/** Where one rendering of a plan keeps its blobs: `slides/<conversation>/<rendering>/...`. */
export function renderingPrefix(conversationId: string, renderingId: string): string {
  return `slides/${conversationId}/${renderingId}`;
}

export function pageCount(plan: SlidePlan): number {
  return plan.kind === 'poster' ? 1 : plan.slides.length;
}

/** The whole plan as one PDF, each page at its size, stored under `key`. */
async function storePdf(
  renderer: SlideRenderer,
  blobs: BlobStore,
  plan: SlidePlan,
  sizes: readonly PageSize[],
  key: string,
  signal: AbortSignal,
): Promise<string> {
  const html = planDocument(
    plan,
    sizes.map((size, index) => ({ index, size })),
    'print',
  );
  await blobs.put(key, await renderer.pdf(html, signal), 'application/pdf');
  return key;
}

/** Page `index` (from 0) as a PNG of its size in pixels, stored under `key`. */
async function storePng(
  renderer: SlideRenderer,
  blobs: BlobStore,
  plan: SlidePlan,
  index: number,
  size: PageSize,
  key: string,
  signal: AbortSignal,
): Promise<StoredPage> {
  const html = planDocument(plan, [{ index, size }], 'screen');
  await blobs.put(key, await renderer.png(html, pixelSize(size), signal), 'image/png');
  return { key, width: size.width, height: size.height };
}

/** Every page of a new plan as PNG, and the PDF, under `prefix`. */
export async function renderPlan(
  renderer: SlideRenderer,
  blobs: BlobStore,
  plan: SlidePlan,
  sizes: readonly PageSize[],
  prefix: string,
  signal: AbortSignal,
): Promise<{ pdfKey: string; pages: StoredPage[] }> {
  const pdfKey = await storePdf(renderer, blobs, plan, sizes, `${prefix}/deck.pdf`, signal);
  const pages: StoredPage[] = [];
  for (const [index, size] of sizes.entries()) {
    pages.push(await storePng(renderer, blobs, plan, index, size, `${prefix}/page-${index + 1}.png`, signal));
  }
  return { pdfKey, pages };
}

/**
 * The pages at other sizes than they were stored at (custom_variables.pages): the pages whose
 * size changed are drawn again, and so is the PDF when it is wanted. Keys are named after the
 * sizes, so asking twice for the same sizes writes the same blobs again instead of new ones.
 */
export async function renderResized(
  renderer: SlideRenderer,
  blobs: BlobStore,
  plan: SlidePlan,
  stored: { readonly pdfKey: string; readonly pages: readonly StoredPage[] },
  sizes: readonly PageSize[],
  prefix: string,
  includePdf: boolean,
  signal: AbortSignal,
): Promise<{ pdfKey: string | undefined; pages: StoredPage[] }> {
  const pages: StoredPage[] = [];
  for (const [index, size] of sizes.entries()) {
    const page = stored.pages[index];
    if (page !== undefined && sameSize(page, size)) pages.push(page);
    else pages.push(await storePng(renderer, blobs, plan, index, size, `${prefix}/sized/page-${index + 1}-${size.width}x${size.height}.png`, signal));
  }
  if (!includePdf) return { pdfKey: undefined, pages };
  if (sizes.every((size, index) => stored.pages[index] !== undefined && sameSize(stored.pages[index], size))) return { pdfKey: stored.pdfKey, pages };
  const sizesTag = createHash('sha256').update(JSON.stringify(sizes)).digest('hex').slice(0, 16);
  return { pdfKey: await storePdf(renderer, blobs, plan, sizes, `${prefix}/sized/deck-${sizesTag}.pdf`, signal), pages };
}
