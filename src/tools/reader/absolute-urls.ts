import type { DomDocument, DomElement } from './dom-types.ts';

/**
 * linkedom keeps links as written, so every URL the reader hands out is resolved here, against
 * the page's `<base href>` (itself resolved against the final URL) or the final URL after redirects.
 */
export function documentBaseUrl(document: DomDocument, finalUrl: string): string {
  const href = document.querySelector('base[href]')?.getAttribute('href');
  if (href === undefined || href === null) return finalUrl;
  const base = absoluteUrl(href, finalUrl);
  return base !== undefined && /^https?:/.test(base) ? base : finalUrl;
}

/** `value` resolved against `base`; undefined for an empty or unparsable value or a `javascript:` URL. */
export function absoluteUrl(value: string, base: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '' || /^javascript:/i.test(trimmed)) return undefined;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return undefined;
  }
}

const urlAttributes: readonly [selector: string, attribute: string][] = [
  ['a[href]', 'href'],
  ['img[src]', 'src'],
  ['source[src]', 'src'],
  ['video[src]', 'src'],
  ['video[poster]', 'poster'],
  ['audio[src]', 'src'],
];

const srcsetSelectors = 'img[srcset], source[srcset]';

/** Rewrites the link and media URLs under `root` to absolute ones, in place. */
export function makeUrlsAbsolute(root: DomElement, base: string): void {
  for (const [selector, attribute] of urlAttributes) {
    for (const element of Array.from(root.querySelectorAll(selector))) {
      const value = element.getAttribute(attribute) ?? '';
      if (value.startsWith('data:')) continue;
      const resolved = absoluteUrl(value, base);
      if (resolved === undefined) element.removeAttribute(attribute);
      else if (resolved !== value) element.setAttribute(attribute, resolved);
    }
  }
  for (const element of Array.from(root.querySelectorAll(srcsetSelectors))) {
    element.setAttribute('srcset', absoluteSrcset(element.getAttribute('srcset') ?? '', base));
  }
}

/** `a.png 1x, b.png 2x` with each URL resolved (descriptors kept). */
function absoluteSrcset(srcset: string, base: string): string {
  return srcset
    .split(/,\s+/)
    .map((candidate) => {
      const [url = '', ...descriptors] = candidate.trim().split(/\s+/);
      const resolved = url.startsWith('data:') ? url : (absoluteUrl(url, base) ?? url);
      return [resolved, ...descriptors].join(' ');
    })
    .join(', ');
}
