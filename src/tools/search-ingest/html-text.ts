import { parseHTML } from 'linkedom';

/** What a saved HTML file says about itself, read without a browser. */
export interface HtmlFacts {
  readonly title: string;
  /** Visible text, one line per block element. */
  readonly text: string;
  readonly description: string;
  readonly siteName: string;
  /** The page's own http(s) address (`<link rel=canonical>` or `og:url`), when it states one. */
  readonly canonicalUrl: string | undefined;
  /** An absolute http(s) icon URL, when the page links one it can be resolved against. */
  readonly icon: string;
  /** Unix ms, when a meta tag or `<time datetime>` states when it was published. */
  readonly publishedAt: number | undefined;
}

const skipped = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'iframe', 'object', 'canvas']);
const blocks = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'td',
  'th',
  'tr',
  'ul',
]);
const publishedSelectors = [
  'meta[property="article:published_time"]',
  'meta[name="article:published_time"]',
  'meta[itemprop="datePublished"]',
  'meta[name="date"]',
  'meta[name="dc.date"]',
  'meta[name="DC.date"]',
  'meta[name="pubdate"]',
];

interface WalkedNode {
  readonly nodeType: number;
  readonly localName?: string;
  readonly textContent: string | null;
  readonly childNodes: ArrayLike<WalkedNode>;
}

/**
 * A small extraction for local files (the platform reader reads URLs): title from `<title>` or
 * the first heading, text from the visible elements with line breaks at block boundaries, and
 * the page's metadata. Linkedom needs a whole document, so a fragment is wrapped in one.
 */
export function readHtmlFacts(html: string): HtmlFacts {
  const { document } = parseHTML(/<html[\s>]/i.test(html) ? html : `<!DOCTYPE html><html><body>${html}</body></html>`);
  const meta = (selector: string) => document.querySelector(selector)?.getAttribute('content')?.trim() ?? '';
  const canonical = document.querySelector('link[rel="canonical"]')?.getAttribute('href')?.trim() || meta('meta[property="og:url"]');
  const canonicalUrl = httpUrl(canonical, undefined);
  const heading = document.querySelector('h1, h2')?.textContent ?? '';
  const iconHref = document.querySelector('link[rel~="icon"]')?.getAttribute('href')?.trim() ?? '';
  return {
    title: squeeze(document.querySelector('title')?.textContent ?? '') || squeeze(heading),
    text: textOf(document.documentElement as unknown as WalkedNode),
    description: meta('meta[name="description"]') || meta('meta[property="og:description"]'),
    siteName: meta('meta[property="og:site_name"]') || meta('meta[name="application-name"]'),
    canonicalUrl,
    icon: iconHref === '' ? '' : (httpUrl(iconHref, canonicalUrl) ?? ''),
    publishedAt: publishedAtOf(
      publishedSelectors.map(meta).find((value) => value !== '') ?? document.querySelector('time[datetime]')?.getAttribute('datetime') ?? '',
    ),
  };
}

function textOf(root: WalkedNode): string {
  const parts: string[] = [];
  const walk = (node: WalkedNode) => {
    if (node.nodeType === 3) {
      parts.push(node.textContent ?? '');
      return;
    }
    if (node.nodeType !== 1) return;
    const name = node.localName ?? '';
    if (skipped.has(name)) return;
    const block = blocks.has(name);
    if (block) parts.push('\n');
    for (const child of Array.from(node.childNodes)) walk(child);
    if (block) parts.push('\n');
  };
  walk(root);
  return parts
    .join('')
    .split('\n')
    .map(squeeze)
    .filter((line) => line !== '')
    .join('\n');
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
