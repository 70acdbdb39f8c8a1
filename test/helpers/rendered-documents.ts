import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';

/**
 * Documents the OCR tests render themselves: pages described as text and filled rectangles,
 * drawn to PNG with Debian's fonts (DejaVu, WenQuanYi Micro Hei for Chinese) or written as PDF
 * (a digital text layer with pdf-lib's standard fonts, or a scanned page: the PNG placed in a PDF).
 */
export interface TextItem {
  readonly text: string;
  /** Left edge and top of the line box, in page pixels (PDF points for digital PDFs). */
  readonly x: number;
  readonly y: number;
  readonly size: number;
  readonly font?: 'sans' | 'serif' | 'cjk';
  readonly bold?: boolean;
}

export interface RectItem {
  readonly rect: { readonly x: number; readonly y: number; readonly width: number; readonly height: number };
  /** CSS colour. */
  readonly fill: string;
}

export interface PageSpec {
  readonly width: number;
  readonly height: number;
  readonly items: readonly (TextItem | RectItem)[];
}

const cjkFontPath = '/usr/share/fonts/truetype/wqy/wqy-microhei.ttc';
let cjkRegistered = false;

const families = { sans: 'DejaVu Sans', serif: 'DejaVu Serif', cjk: 'WenQuanYi Micro Hei' } as const;

export async function renderPagePng(page: PageSpec): Promise<Buffer> {
  if (!cjkRegistered) {
    GlobalFonts.registerFromPath(cjkFontPath, families.cjk);
    cjkRegistered = true;
  }
  const canvas = createCanvas(page.width, page.height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, page.width, page.height);
  context.textBaseline = 'top';
  for (const item of page.items) {
    if ('rect' in item) {
      context.fillStyle = item.fill;
      context.fillRect(item.rect.x, item.rect.y, item.rect.width, item.rect.height);
      continue;
    }
    context.fillStyle = '#000000';
    context.font = `${item.bold === true ? 'bold ' : ''}${item.size}px "${families[item.font ?? 'sans']}"`;
    context.fillText(item.text, item.x, item.y);
  }
  // Awaited before returning: the canvas must outlive its encoding (a collected canvas crashes).
  const png = await canvas.encode('png');
  return png;
}

/** A PDF with a real text layer (Helvetica / Times; Latin text only), one page per spec. */
export async function digitalPdf(pages: readonly PageSpec[]): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const sans = await pdf.embedFont(StandardFonts.Helvetica);
  const sansBold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const serif = await pdf.embedFont(StandardFonts.TimesRoman);
  for (const spec of pages) {
    const page = pdf.addPage([spec.width, spec.height]);
    for (const item of spec.items) {
      if ('rect' in item) {
        const { x, y, width, height } = item.rect;
        page.drawRectangle({ x, y: spec.height - y - height, width, height, color: cssGrey(item.fill) });
        continue;
      }
      const font = item.font === 'serif' ? serif : item.bold === true ? sansBold : sans;
      // pdf-lib places the baseline; the spec gives the top of the line box.
      page.drawText(item.text, { x: item.x, y: spec.height - item.y - item.size * 0.8, size: item.size, font });
    }
  }
  return Buffer.from(await pdf.save());
}

/** A PDF of page images only (no text layer), as a scanner makes. */
export async function scannedPdf(pages: readonly PageSpec[]): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  for (const spec of pages) {
    const image = await pdf.embedPng(await renderPagePng(spec));
    const page = pdf.addPage([spec.width, spec.height]);
    page.drawImage(image, { x: 0, y: 0, width: spec.width, height: spec.height });
  }
  return Buffer.from(await pdf.save());
}

/** A grey from a #rrggbb colour (enough for test rectangles). */
function cssGrey(fill: string): ReturnType<typeof rgb> {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(fill);
  if (hex === null) return rgb(0.5, 0.5, 0.5);
  const channel = (value: string | undefined) => Number.parseInt(value ?? '80', 16) / 255;
  return rgb(channel(hex[1]), channel(hex[2]), channel(hex[3]));
}

/**
 * Character error rate: edit distance between the texts divided by the expected length, with
 * whitespace runs collapsed (layout may break lines differently).
 */
export function characterErrorRate(expected: string, actual: string): number {
  const want = [...expected.replace(/\s+/g, ' ').trim()];
  const got = [...actual.replace(/\s+/g, ' ').trim()];
  if (want.length === 0) return got.length === 0 ? 0 : 1;
  let previous = Array.from({ length: got.length + 1 }, (_, index) => index);
  for (let row = 1; row <= want.length; row++) {
    const current = [row];
    for (let column = 1; column <= got.length; column++) {
      const substitution = (previous[column - 1] ?? 0) + (want[row - 1] === got[column - 1] ? 0 : 1);
      current.push(Math.min((previous[column] ?? 0) + 1, (current[column - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return (previous[got.length] ?? 0) / want.length;
}
