import { createCanvas } from '@napi-rs/canvas';
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { Box, RasterImage, TextLine } from '../layout/page-content.ts';
import { pdfUnreadable, PdfUnreadableError } from './pdf-unreadable-error.ts';
import type { PdfJs } from './pdfjs-document.ts';
import { placedPictures } from './placed-pictures.ts';
import { countVisibleCharacters, groupTextLines, type PageFrame, type PdfTextItem, type PdfTextStyle } from './text-lines.ts';

/** Fewer visible characters than this is a stray page number or stamp on a scan, not a text layer. */
const minimumTextLayerCharacters = 10;
/** A render larger than this (about 160 MB of RGBA) is refused rather than risking the process. */
const maximumRenderPixels = 40_000_000;

type RenderParameters = Parameters<PDFPageProxy['render']>[0];

/**
 * One page of an open PDF. Sizes are in PDF points with the page's rotation applied; the text,
 * picture boxes and renders are in pixels of a render at the scale asked for (1 pixel per point
 * at scale 1), origin top left. The page's text is read once when the page is opened.
 */
export class PdfPage {
  /** 1-based. */
  readonly number: number;
  readonly width: number;
  readonly height: number;
  readonly #page: PDFPageProxy;
  readonly #pdfjs: PdfJs;
  readonly #items: readonly PdfTextItem[];
  readonly #styles: Readonly<Record<string, PdfTextStyle>>;

  private constructor(page: PDFPageProxy, pdfjs: PdfJs, items: readonly PdfTextItem[], styles: Readonly<Record<string, PdfTextStyle>>) {
    this.number = page.pageNumber;
    const viewport = page.getViewport({ scale: 1 });
    this.width = viewport.width;
    this.height = viewport.height;
    this.#page = page;
    this.#pdfjs = pdfjs;
    this.#items = items;
    this.#styles = styles;
  }

  /** The page with its text content read; unreadable page content throws PdfUnreadableError. */
  static async load(page: PDFPageProxy, pdfjs: PdfJs): Promise<PdfPage> {
    try {
      const content = await page.getTextContent();
      const items: PdfTextItem[] = [];
      for (const item of content.items) if ('str' in item) items.push(item);
      return new PdfPage(page, pdfjs, items, content.styles);
    } catch (error) {
      throw pdfUnreadable(error, `page ${page.pageNumber}`);
    } finally {
      // Fonts and other page resources are parsed again if a render needs them.
      page.cleanup();
    }
  }

  /** The text layer as lines (see groupTextLines), in pixels of a render at this scale. */
  textLines(scale = 1): TextLine[] {
    return groupTextLines(this.#items, this.#styles, this.#frame(scale));
  }

  /** True when the page carries real text, not just a scan (perhaps with a stray page number). */
  hasTextLayer(): boolean {
    return countVisibleCharacters(this.#items) >= minimumTextLayerCharacters;
  }

  /** Boxes of the images placed on the page (photos, figures, a scan's page image). */
  async pictures(scale = 1): Promise<Box[]> {
    const frame = this.#frame(scale);
    try {
      const operatorList = await this.#page.getOperatorList();
      return placedPictures(operatorList, this.#pdfjs.OPS, frame);
    } catch (error) {
      throw pdfUnreadable(error, `page ${this.number}`);
    } finally {
      this.#page.cleanup();
    }
  }

  /** The page drawn on white at this scale (annotation appearances included, as a viewer shows them). */
  async render(scale = 1): Promise<RasterImage> {
    const viewport = this.#page.getViewport({ scale: checkedScale(scale) });
    const width = Math.max(1, Math.round(viewport.width));
    const height = Math.max(1, Math.round(viewport.height));
    if (width * height > maximumRenderPixels) {
      throw new PdfUnreadableError(`page ${this.number} is too large to render at scale ${scale} (${width}×${height} pixels)`);
    }
    const canvas = createCanvas(width, height);
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    try {
      await this.#page.render({
        canvas: canvas as unknown as RenderParameters['canvas'],
        canvasContext: context as unknown as RenderParameters['canvasContext'],
        viewport,
        background: '#ffffff',
      }).promise;
    } catch (error) {
      throw pdfUnreadable(error, `page ${this.number}`);
    } finally {
      this.#page.cleanup();
    }
    return { width, height, data: context.getImageData(0, 0, width, height).data };
  }

  #frame(scale: number): PageFrame {
    const viewport = this.#page.getViewport({ scale: checkedScale(scale) });
    return { transform: viewport.transform, scale: viewport.scale, width: viewport.width, height: viewport.height };
  }
}

function checkedScale(scale: number): number {
  if (!(Number.isFinite(scale) && scale > 0)) throw new RangeError(`a PDF page scale must be a positive number, not ${scale}`);
  return scale;
}
