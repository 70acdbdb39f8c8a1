import { parseHTML } from 'linkedom';

/** What a saved HTML file says about itself, read without a browser. */
export interface HtmlFacts {
  readonly title: string;
  readonly description: string;
  readonly siteName: string;
  /** The page's own http(s) address (`<link rel=canonical>` or `og:url`), when it states one. */
  readonly canonicalUrl: string | undefined;
  /** An absolute http(s) icon URL, when the page links one it can be resolved against. */
  readonly icon: string;
  /** Unix ms, when a meta tag or `<time datetime>` states when it was published. */
  readonly publishedAt: number | undefined;
}

const publishedSelectors = [
  'meta[property="article:published_time"]',
  'meta[name="article:published_time"]',
  'meta[itemprop="datePublished"]',
  'meta[name="date"]',
  'meta[name="dc.date"]',
  'meta[name="DC.date"]',
  'meta[name="pubdate"]',
];

/**
 * What a local HTML file states about itself beside its text (the text comes from the reader's
 * extraction, html-article.ts): title from `<title>` or the first heading, its own address, site
 * name, icon (resolved against its own address, else `publicUrl`) and publication date. Linkedom needs a whole document, so a fragment is wrapped in one.
 */
export function readHtmlFacts(html: string, publicUrl: string | undefined): HtmlFacts {
  const { document } = parseHTML(/<html[\s>]/i.test(html) ? html : `<!DOCTYPE html><html><body>${html}</body></html>`);
  const meta = (selector: string) => document.querySelector(selector)?.getAttribute('content')?.trim() ?? '';
  const canonical = document.querySelector('link[rel="canonical"]')?.getAttribute('href')?.trim() || meta('meta[property="og:url"]');
  const canonicalUrl = httpUrl(canonical, undefined);
  const heading = document.querySelector('h1, h2')?.textContent ?? '';
  const iconHref = document.querySelector('link[rel~="icon"]')?.getAttribute('href')?.trim() ?? '';
  return {
    title: squeeze(document.querySelector('title')?.textContent ?? '') || squeeze(heading),
    description: meta('meta[name="description"]') || meta('meta[property="og:description"]'),
    siteName: meta('meta[property="og:site_name"]') || meta('meta[name="application-name"]'),
    canonicalUrl,
    icon: iconHref === '' ? '' : (httpUrl(iconHref, canonicalUrl ?? publicUrl) ?? ''),
    publishedAt: publishedAtOf(
      publishedSelectors.map(meta).find((value) => value !== '') ?? document.querySelector('time[datetime]')?.getAttribute('datetime') ?? '',
    ),
  };
}

function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function httpUrl(href: string, base: string | undefined): string | undefined {
  if (href === '') return undefined;
  try {
    const url = new URL(href, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export function publishedAtOf(value: string): number | undefined {
  if (value.trim() === '') return undefined;
  const time = Date.parse(value.trim());
  return Number.isNaN(time) ? undefined : time;
}
