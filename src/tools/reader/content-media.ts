import { collapse } from './page-metadata.ts';
import type { DomElement } from './dom-types.ts';

/**
 * Images and links of the extracted content. `retain_images: false` drops every image (figure
 * captions stay as text). `keep_img_data_url: false` (the default) drops the images whose only
 * source is an inline `data:` URL: they have no address to give, and their base64 would swamp the
 * text; the images summary leaves them out too.
 */
export function filterImages(root: DomElement, options: { retainImages: boolean; keepImgDataUrl: boolean }): void {
  if (!options.retainImages) {
    for (const element of Array.from(root.querySelectorAll('img, picture, svg'))) element.remove();
    return;
  }
  if (options.keepImgDataUrl) return;
  for (const image of Array.from(root.querySelectorAll('img'))) {
    if ((image.getAttribute('src') ?? '').trim().toLowerCase().startsWith('data:')) image.remove();
  }
  for (const source of Array.from(root.querySelectorAll('source[srcset]'))) {
    if ((source.getAttribute('srcset') ?? '').trim().toLowerCase().startsWith('data:')) source.remove();
  }
}

/** Image URL → alt text (or title, or ""), in order of appearance; the first alt of a repeated URL wins. */
export function imageSummary(root: DomElement): Record<string, string> {
  // URLs are the page's: a Map, then own properties (Object.fromEntries never reaches a prototype).
  const images = new Map<string, string>();
  for (const image of Array.from(root.querySelectorAll('img[src]'))) {
    const source = image.getAttribute('src') ?? '';
    if (!/^(https?|data):/i.test(source) || images.has(source)) continue;
    images.set(source, collapse(image.getAttribute('alt') ?? image.getAttribute('title') ?? ''));
  }
  return Object.fromEntries(images);
}

/** Link URL → link text (or title, or the image alt it wraps), http(s) links only; the first text of a repeated URL wins. */
export function linkSummary(root: DomElement): Record<string, string> {
  const links = new Map<string, string>();
  for (const anchor of Array.from(root.querySelectorAll('a[href]'))) {
    const href = anchor.getAttribute('href') ?? '';
    if (!/^https?:/i.test(href)) continue;
    const text =
      collapse(anchor.textContent ?? '') ||
      collapse(anchor.getAttribute('title') ?? '') ||
      collapse(anchor.querySelector('img[alt]')?.getAttribute('alt') ?? '');
    if (!links.has(href) || (links.get(href) === '' && text !== '')) links.set(href, text);
  }
  return Object.fromEntries(links);
}
