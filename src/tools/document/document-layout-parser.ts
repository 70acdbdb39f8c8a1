import { Semaphore } from '../../core/backends/concurrency-limit.ts';
import type { LayoutElement, LayoutPage, LayoutParser, LayoutRequest, LayoutResult, NormalisedBox } from '../../core/ocr/layout-parser.ts';
import { analyseLayout, type LayoutBlock } from '../layout/analyse-layout.ts';
import { drawLayout } from '../layout/draw-layout.ts';
import type { Box, PageContent, RasterImage } from '../layout/page-content.ts';
import { cropPng } from '../raster/crop-png.ts';
import { documentPages, type TextRecogniser } from './document-pages.ts';

/** What a recognition model makes of one block's crop (GLM-OCR), with the tokens it spent. */
export interface RefinedBlock {
  readonly content: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** Re-reads a text, table or formula block from its crop (PNG) with a stronger recogniser. */
type BlockRefiner = (block: LayoutBlock, crop: Uint8Array, signal: AbortSignal) => Promise<RefinedBlock>;

export interface DocumentLayoutParserOptions {
  readonly recognise: TextRecogniser;
  readonly refine?: BlockRefiner;
  /** Documents parsed at once; OCR is CPU-bound, so more than the cores only queues inside the runtime. */
  readonly concurrency: number;
  /** Pages of one document recognised at once (the recogniser's parallelism); default 1. */
  readonly pagesInFlight?: number;
}

/**
 * Layout parsing in process: each page's text lines (text layer or OCR) are grouped into blocks
 * in reading order and labelled; image blocks are cropped, and with a refiner the other blocks are
 * re-read from their crops. Documents wait for a slot, so a burst of requests does not thrash.
 */
export class DocumentLayoutParser implements LayoutParser {
  readonly #options: DocumentLayoutParserOptions;
  readonly #slots: Semaphore;

  constructor(options: DocumentLayoutParserOptions) {
    this.#options = options;
    this.#slots = new Semaphore(options.concurrency);
  }

  async parse(request: LayoutRequest): Promise<LayoutResult> {
    const release = await this.#slots.acquire(request.signal);
    try {
      const pages: LayoutPage[] = [];
      const usage = { promptTokens: 0, completionTokens: 0 };
      const range = {
        ...(request.startPage === undefined ? {} : { startPage: request.startPage }),
        ...(request.endPage === undefined ? {} : { endPage: request.endPage }),
      };
      for await (const content of documentPages(request.document, range, this.#options.recognise, request.signal, this.#options.pagesInFlight)) {
        pages.push(await this.#layoutPage(content, request, usage));
      }
      return { pages, usage };
    } finally {
      release();
    }
  }

  async #layoutPage(
    content: PageContent & { readonly raster: RasterImage },
    request: LayoutRequest,
    usage: { promptTokens: number; completionTokens: number },
  ): Promise<LayoutPage> {
    const blocks = analyseLayout(content);
    const elements: LayoutElement[] = [];
    for (const block of blocks) {
      request.signal.throwIfAborted();
      const bbox = normalise(block.box, content.width, content.height);
      if (block.label === 'image') {
        elements.push({ label: 'image', bbox, content: '', image: await cropPng(content.raster, block.box) });
        continue;
      }
      let text = block.content;
      if (this.#options.refine !== undefined) {
        const refined = await this.#options.refine(block, await cropPng(content.raster, block.box), request.signal);
        text = refined.content;
        usage.promptTokens += refined.promptTokens;
        usage.completionTokens += refined.completionTokens;
      }
      elements.push({ label: block.label, bbox, content: text, ...(block.headingLevel === undefined ? {} : { headingLevel: block.headingLevel }) });
    }
    return {
      width: content.width,
      height: content.height,
      elements,
      ...(request.needVisualization ? { visualization: await drawLayout(content.raster, blocks) } : {}),
    };
  }
}

/** A pixel box as fractions of the page, clamped to 0–1 and rounded to 4 decimals. */
function normalise(box: Box, width: number, height: number): NormalisedBox {
  const fraction = (value: number, size: number) => Math.round(Math.min(1, Math.max(0, value / size)) * 10_000) / 10_000;
  return [fraction(box.x0, width), fraction(box.y0, height), fraction(box.x1, width), fraction(box.y1, height)];
}
