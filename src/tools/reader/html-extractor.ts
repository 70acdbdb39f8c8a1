import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { documentBaseUrl, makeUrlsAbsolute } from './absolute-urls.ts';
import { looksLikeChallenge } from './challenge-page.ts';
import { filterImages, imageSummary, linkSummary } from './content-media.ts';
import type { DomDocument, DomElement } from './dom-types.ts';
import { MarkdownWriter } from './markdown-writer.ts';
import { collapse, normalizeTime, readPageMetadata } from './page-metadata.ts';
import { writePlainText } from './plain-text-writer.ts';

/** The options of ReadOptions that shape the output (and so the cache key). */
export interface ContentOptions {
  readonly returnFormat: 'markdown' | 'text';
  readonly retainImages: boolean;
  readonly noGfm: boolean;
  readonly keepImgDataUrl: boolean;
  readonly withImagesSummary: boolean;
  readonly withLinksSummary: boolean;
}

export interface ExtractedPage {
  readonly title: string;
  readonly description: string;
  readonly content: string;
  readonly metadata: Record<string, string>;
  readonly stylesheets: Record<string, string>;
  readonly images?: Record<string, string>;
  readonly links?: Record<string, string>;
  readonly publishedTime?: string;
}

export type HtmlExtraction =
  | { readonly kind: 'page'; readonly page: ExtractedPage }
  /** A bot check answered instead of the page. */
  | { readonly kind: 'challenge' }
  /** No readable text; `scripted` when the page has scripts that would build it in a browser. */
  | { readonly kind: 'empty'; readonly scripted: boolean }
  /** Elements nested deeper than `maxDepth`: Readability's time grows steeply with depth and its recursion overflows the stack. */
  | { readonly kind: 'too-deep'; readonly maxDepth: number };

/**
 * Deepest element nesting the extractor takes apart. Readability takes about a second at this
 * depth, 4.5 s at 512, 25 s at 1000 and minutes beyond (then a stack overflow); real pages stay
 * well under 100 levels.
 */
const maxElementDepth = 256;

/**
 * HTML → the main content and what the page says about itself: linkedom parses, Readability
 * finds the article (its content comes back as an element of the same document, not as HTML to
 * parse again), URLs are made absolute, images filtered, then Markdown (turndown) or plain text.
 */
export class HtmlExtractor {
  readonly #markdown = new MarkdownWriter();

  extract(html: string, finalUrl: string, options: ContentOptions): HtmlExtraction {
    const document = parseDocument(html);
    if (document.documentElement !== null && nestedDeeperThan(document.documentElement, maxElementDepth))
      return { kind: 'too-deep', maxDepth: maxElementDepth };
    const base = documentBaseUrl(document, finalUrl);
    const page = readPageMetadata(document, base);
    const scripted = document.querySelector('script') !== null;
    let links: Record<string, string> | undefined;
    if (options.withLinksSummary && document.body !== null) {
      // Links of the whole page (navigation included): what a crawler following them wants.
      makeUrlsAbsolute(document.body, base);
      links = linkSummary(document.body);
    }
    const article = new Readability<DomElement>(document as never, {
      serializer: (node) => node as unknown as DomElement,
      classesToPreserve: prepareCodeBlocks(document),
    }).parse();
    const root = article?.content ?? bodyWithoutScripts(document);
    if (root === null || root === undefined) return { kind: 'empty', scripted };
    makeUrlsAbsolute(root, base);
    filterImages(root, options);
    const text = collapse(root.textContent ?? '');
    if (looksLikeChallenge(page.title, html, text.length)) return { kind: 'challenge' };
    if (text === '' && root.querySelector('img') === null) return { kind: 'empty', scripted };
    const content = options.returnFormat === 'text' ? writePlainText(root) : this.#markdown.write(root, { gfm: !options.noGfm });
    const publishedTime = page.publishedTime ?? normalizeTime(article?.publishedTime ?? '');
    return {
      kind: 'page',
      page: {
        title: page.title || collapse(article?.title ?? ''),
        description: page.description || collapse(article?.excerpt ?? ''),
        content,
        metadata: page.metadata,
        stylesheets: page.stylesheets,
        ...(options.withImagesSummary ? { images: imageSummary(root) } : {}),
        ...(links === undefined ? {} : { links }),
        ...(publishedTime === undefined ? {} : { publishedTime }),
      },
    };
  }
}

/**
 * linkedom builds no <html> or <body> around markup that lacks them (a fragment, bare text),
 * and its `document.body` then throws; such input is parsed again inside a skeleton.
 */
function parseDocument(html: string): DomDocument {
  const document = parseHTML(html).document as unknown as DomDocument;
  if (document.documentElement?.nodeName === 'HTML' && document.querySelector('body') !== null) return document;
  if (document.documentElement?.nodeName === 'HTML' && document.querySelector('head') !== null) return document;
  return parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`).document as unknown as DomDocument;
}

const languageClass = /^(?:lang|language)-(\S+)$/;

/**
 * Readability strips class attributes, and turndown reads a fenced block's language from the
 * `language-x` class of the `<code>` inside `<pre>`. So: a language written on `<pre>` or as
 * `lang-x` moves to the `<code>` as `language-x`, a bare `<pre>` gets a `<code>` inside, and the
 * language classes found are the ones Readability is told to keep.
 */
function prepareCodeBlocks(document: DomDocument): string[] {
  const kept = new Set<string>();
  for (const pre of Array.from(document.querySelectorAll('pre'))) {
    let code = pre.firstElementChild?.nodeName === 'CODE' ? pre.firstElementChild : null;
    if (code === null && pre.querySelector('*') === null) {
      pre.innerHTML = `<code>${pre.innerHTML}</code>`;
      code = pre.firstElementChild;
    }
    if (code === null) continue;
    const language = languageOf(code) ?? languageOf(pre);
    if (language === undefined) continue;
    const name = `language-${language}`;
    const classes = (code.getAttribute('class') ?? '').split(/\s+/).filter((item) => item !== '' && !languageClass.test(item));
    code.setAttribute('class', [...classes, name].join(' '));
    kept.add(name);
  }
  return [...kept];
}

function languageOf(element: DomElement): string | undefined {
  for (const name of (element.getAttribute('class') ?? '').split(/\s+/)) {
    const match = languageClass.exec(name);
    if (match?.[1] !== undefined) return match[1];
  }
  return undefined;
}

/** Whether elements under `root` nest more than `limit` levels, walked without recursion (the page may be nested without end). */
function nestedDeeperThan(root: DomElement, limit: number): boolean {
  let depth = 0;
  let element: DomElement | null = root;
  while (element !== null) {
    const child: DomElement | null = element.firstElementChild;
    if (child !== null) {
      depth += 1;
      if (depth > limit) return true;
      element = child;
      continue;
    }
    while (element !== root && element.nextElementSibling === null) {
      element = element.parentElement;
      depth -= 1;
      if (element === null) return false;
    }
    if (element === root) return false;
    element = element.nextElementSibling;
  }
  return false;
}

/** The whole body, for pages Readability finds no article in. */
function bodyWithoutScripts(document: DomDocument): DomElement | null {
  const body = document.body;
  if (body === null) return null;
  for (const element of Array.from(body.querySelectorAll('script, style, noscript, template'))) element.remove();
  return body;
}
