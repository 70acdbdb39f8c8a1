/** Document formats layout parsing accepts, as read from the bytes. */
export type DocumentFormat = 'pdf' | 'png' | 'jpg';

export const layoutLabels = ['image', 'text', 'formula', 'table'] as const;
export type LayoutLabel = (typeof layoutLabels)[number];

/** One layout parsing request; the document is already fetched and its format and size checked. */
export interface LayoutRequest {
  readonly model: string;
  readonly document: { readonly bytes: Uint8Array; readonly format: DocumentFormat };
  /** 1-based inclusive page range of a PDF; absent ends mean the document's first / last page. */
  readonly startPage?: number;
  readonly endPage?: number;
  /** Draw the detected boxes onto each page (`layout_visualization`). */
  readonly needVisualization: boolean;
  readonly signal: AbortSignal;
}

/** A box normalised to the page: [x1, y1, x2, y2], each 0 to 1. */
export type NormalisedBox = readonly [number, number, number, number];

export interface LayoutElement {
  readonly label: LayoutLabel;
  readonly bbox: NormalisedBox;
  /** Text, table HTML or formula; empty for an image (its crop is `image`). */
  readonly content: string;
  /** 1 to 6 for a block recognised as a heading. */
  readonly headingLevel?: number;
  /** PNG of the region, for `image` elements. */
  readonly image?: Uint8Array;
  /** The region's image where the engine already serves it (the upstream platform), instead of `image`. */
  readonly imageUrl?: string;
}

export interface LayoutPage {
  /** Page size in pixels of the analysed raster (or PDF points for a text-layer page). */
  readonly width: number;
  readonly height: number;
  /** Elements in reading order. */
  readonly elements: readonly LayoutElement[];
  /** PNG of the page with the element boxes drawn, when asked for. */
  readonly visualization?: Uint8Array;
  /** The visualization where the engine already serves it (the upstream platform). */
  readonly visualizationUrl?: string;
}

export interface LayoutResult {
  readonly pages: readonly LayoutPage[];
  /** The engine's own Markdown of the document (the upstream platform); built from the elements otherwise. */
  readonly markdown?: string;
  readonly usage: { readonly promptTokens: number; readonly completionTokens: number };
}

/** Layout parsing (OCR) of an image or PDF into elements in reading order (docs/wire.md §1.3). */
export interface LayoutParser {
  parse(request: LayoutRequest): Promise<LayoutResult>;
}
