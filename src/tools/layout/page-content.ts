/**
 * The contract between the recognisers (PaddleOCR on a raster, a PDF's text layer) and layout
 * analysis. Coordinates are page pixels, origin top left, y growing downwards.
 */
export interface Box {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** An RGBA raster, 4 bytes a pixel, row by row. */
export interface RasterImage {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8ClampedArray;
}

/** One line (or one same-line fragment) of recognised text. */
export interface TextLine {
  readonly text: string;
  readonly box: Box;
  /** Recognition confidence 0 to 1 (1 for a PDF text layer). */
  readonly confidence: number;
}

/** One page as the recognisers see it, ready for layout analysis. */
export interface PageContent {
  readonly width: number;
  readonly height: number;
  readonly lines: readonly TextLine[];
  /** Picture regions already known (a PDF's placed images); analysis may detect more on the raster. */
  readonly pictures: readonly Box[];
  /** The page's pixels when it has been rendered or decoded. */
  readonly raster?: RasterImage;
}
