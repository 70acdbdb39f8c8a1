/** How to read a page (docs/wire.md §1.1, with the defaults applied). */
export interface ReadOptions {
  readonly timeoutMs: number;
  readonly noCache: boolean;
  readonly returnFormat: 'markdown' | 'text';
  readonly retainImages: boolean;
  readonly noGfm: boolean;
  readonly keepImgDataUrl: boolean;
  readonly withImagesSummary: boolean;
  readonly withLinksSummary: boolean;
  readonly signal: AbortSignal;
}

/** A read page (docs/wire.md §1.1), engine-neutral. */
export interface ReadResult {
  /** The URL as requested. */
  readonly url: string;
  readonly title: string;
  readonly description: string;
  /** Main content, Markdown or plain text as asked, links and images absolute. */
  readonly content: string;
  /** keywords, viewport, description, format-detection (and others the page declares). */
  readonly metadata: Readonly<Record<string, string>>;
  /** External stylesheets: href → media (or ""). */
  readonly stylesheets: Readonly<Record<string, string>>;
  /** Image URL → alt text, when the images summary was asked for. */
  readonly images?: Readonly<Record<string, string>>;
  /** Link URL → link text, when the links summary was asked for. */
  readonly links?: Readonly<Record<string, string>>;
  /** ISO 8601, when the page states it. */
  readonly publishedTime?: string;
}

/** The web reader capability. Failures are ApiErrors with distinct, clear messages. */
export interface WebReader {
  read(url: string, options: ReadOptions): Promise<ReadResult>;
}
