import { HtmlExtractor, type ContentOptions } from './html-extractor.ts';

/** The readable part of an HTML page, as plain text. */
export interface HtmlArticle {
  readonly title: string;
  readonly description: string;
  /** The article's text, one line per block; no navigation, footers or sidebars. */
  readonly text: string;
  /** ISO 8601, when the page states when it was published. */
  readonly publishedTime: string | undefined;
}

/** The reader's content options for plain text without images or link lists: what indexes and knowledge bases want. */
export const plainTextContent: ContentOptions = {
  returnFormat: 'text',
  retainImages: false,
  noGfm: false,
  keepImgDataUrl: false,
  withImagesSummary: false,
  withLinksSummary: false,
};

const extractor = new HtmlExtractor();

/**
 * The reader's extraction (Readability finds the article, the plain-text writer keeps its blocks)
 * for HTML the platform already holds, such as a local file or an uploaded document, so that what
 * gets indexed is what the reader would answer for the same page, not its menus and footers.
 * `url` is the page's address: relative links resolve against it (a `file:` URL will do).
 * Undefined when the page has no readable text (an empty page, a bot check); throws when its
 * elements nest deeper than the reader takes apart. The caller caps how much HTML it passes.
 */
export function extractHtmlArticle(html: string, url: string): HtmlArticle | undefined {
  const extraction = extractor.extract(html, url, plainTextContent);
  if (extraction.kind === 'too-deep') throw new Error(`the page nests its elements more than ${extraction.maxDepth} levels deep`);
  if (extraction.kind !== 'page' || extraction.page.content.trim() === '') return undefined;
  const page = extraction.page;
  return { title: page.title, description: page.description, text: page.content.trim(), publishedTime: page.publishedTime };
}
