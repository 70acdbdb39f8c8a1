import { absoluteUrl } from './absolute-urls.ts';
import type { DomDocument, DomElement } from './dom-types.ts';

/** What the page says about itself, read before Readability rearranges the document. */
export interface PageMetadata {
  /** `<title>`, else og:title / twitter:title; "" when none. */
  readonly title: string;
  /** meta description, else og:description / twitter:description; "" when none. */
  readonly description: string;
  /** Every `<meta name|property|itemprop content>`; the first of a repeated name wins. */
  readonly metadata: Record<string, string>;
  /** External stylesheets: absolute href → media ("" when none). */
  readonly stylesheets: Record<string, string>;
  /** ISO 8601 when the page states when it was published. */
  readonly publishedTime: string | undefined;
}

const publishedNames = [
  'article:published_time',
  'og:article:published_time',
  'article.published',
  'datepublished',
  'pubdate',
  'publishdate',
  'publish_date',
  'publish-date',
  'date',
  'dc.date',
  'dc.date.issued',
  'dcterms.created',
  'dcterms.issued',
  'sailthru.date',
  'parsely-pub-date',
];

export function readPageMetadata(document: DomDocument, baseUrl: string): PageMetadata {
  // Names and URLs are the page's: collected in Maps, so `__proto__` or `constructor` are names like any other.
  const metadata = new Map<string, string>();
  const lowerCaseNames = new Map<string, string>();
  for (const meta of Array.from(document.querySelectorAll('meta'))) {
    const name = (meta.getAttribute('name') ?? meta.getAttribute('property') ?? meta.getAttribute('itemprop'))?.trim();
    const content = meta.getAttribute('content');
    if (name === undefined || name === '' || content === null) continue;
    if (!metadata.has(name)) metadata.set(name, content.trim());
    const lower = name.toLowerCase();
    if (!lowerCaseNames.has(lower)) lowerCaseNames.set(lower, content.trim());
  }
  const named = (...names: string[]): string => names.map((name) => lowerCaseNames.get(name) ?? '').find((value) => value !== '') ?? '';
  const title = collapse(document.querySelector('title')?.textContent ?? '') || named('og:title', 'twitter:title');
  return {
    title,
    description: named('description', 'og:description', 'twitter:description'),
    metadata: Object.fromEntries(metadata),
    stylesheets: readStylesheets(document, baseUrl),
    publishedTime: normalizeTime(named(...publishedNames)) ?? publishedInJsonLd(document) ?? publishedInTimeElement(document),
  };
}

/** Whitespace runs become one space; the ends are trimmed. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function readStylesheets(document: DomDocument, baseUrl: string): Record<string, string> {
  const stylesheets = new Map<string, string>();
  for (const link of Array.from(document.querySelectorAll('link[rel][href]'))) {
    const relations = (link.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
    if (!relations.includes('stylesheet')) continue;
    const href = absoluteUrl(link.getAttribute('href') ?? '', baseUrl);
    if (href !== undefined && !stylesheets.has(href)) stylesheets.set(href, link.getAttribute('media')?.trim() ?? '');
  }
  return Object.fromEntries(stylesheets);
}

/** `datePublished` of the first JSON-LD object that has one (also inside `@graph` and arrays). */
function publishedInJsonLd(document: DomDocument): string | undefined {
  for (const script of Array.from(document.querySelectorAll('script[type="application/ld+json"]'))) {
    let data: unknown;
    try {
      data = JSON.parse(script.textContent ?? '');
    } catch {
      continue; // a broken JSON-LD block says nothing; others may
    }
    const found = findDatePublished(data, 0);
    if (found !== undefined) return found;
  }
  return undefined;
}

function findDatePublished(value: unknown, depth: number): string | undefined {
  if (depth > 6 || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findDatePublished(item, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  const date = record['datePublished'] ?? record['dateCreated'];
  if (typeof date === 'string') {
    const normalized = normalizeTime(date);
    if (normalized !== undefined) return normalized;
  }
  return findDatePublished(record['@graph'], depth + 1) ?? findDatePublished(record['mainEntity'], depth + 1);
}

/** A `<time>` that says it is the publication date, else the first `<time datetime>` of the page. */
function publishedInTimeElement(document: DomDocument): string | undefined {
  const marked: DomElement | null = document.querySelector('time[itemprop="datePublished"][datetime]') ?? document.querySelector('time[pubdate][datetime]');
  const element = marked ?? document.querySelector('time[datetime]');
  return element === null ? undefined : normalizeTime(element.getAttribute('datetime') ?? '');
}

/** ISO 8601 in UTC, or undefined when the text is not a date. */
export function normalizeTime(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || !/\d{4}/.test(trimmed)) return undefined;
  const time = Date.parse(trimmed);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}
