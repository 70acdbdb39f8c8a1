import type { PageSpec, TextItem } from './rendered-documents.ts';

/**
 * The pages the layout parsing tests render, with the text each holds in reading order. Sizes are
 * pixels for PNG renders and points for PDFs (PDF pages are parsed at 2×).
 */
export interface SampleDocument {
  readonly page: PageSpec;
  /** The blocks' text in reading order. */
  readonly blocks: readonly string[];
}

const lines = (texts: readonly string[], x: number, top: number, size: number, gap = 1.5): TextItem[] =>
  texts.map((text, index) => ({ text, x, y: top + index * size * gap, size }));

const introduction = ['Layout parsing turns scanned pages into text', 'that programs can search, index and quote.'];
const method = ['Each line is detected, then recognised, and', 'lines close together become one paragraph.'];

export const singleColumn: SampleDocument = {
  page: {
    width: 1000,
    height: 620,
    items: [{ text: 'Reading Documents', x: 60, y: 40, size: 44 }, ...lines(introduction, 60, 150, 26), ...lines(method, 60, 330, 26)],
  },
  blocks: ['Reading Documents', introduction.join(' '), method.join(' ')],
};

const left = ['Columns are read from top', 'to bottom before the next', 'column starts on the right.'];
const right = ['The second column comes', 'after the first one, even', 'when its lines sit higher.'];

export const twoColumns: SampleDocument = {
  page: {
    width: 1100,
    height: 560,
    items: [{ text: 'Two Column Report', x: 60, y: 40, size: 44 }, ...lines(left, 60, 160, 26), ...lines(right, 600, 160, 26)],
  },
  blocks: ['Two Column Report', left.join(' '), right.join(' ')],
};

export const tableRows = [
  ['Item', 'Count', 'Price'],
  ['Apples', '12', '3.50'],
  ['Pears', '7', '2.10'],
] as const;

export const table: SampleDocument = {
  page: {
    width: 900,
    height: 420,
    items: tableRows.flatMap((row, rowIndex) => row.map((text, column) => ({ text, x: 80 + column * 280, y: 60 + rowIndex * 100, size: 30 }))),
  },
  blocks: [],
};

export const chinese: SampleDocument = {
  page: {
    width: 900,
    height: 300,
    items: [
      { text: '版面解析把文档变成文字', x: 60, y: 60, size: 40, font: 'cjk' },
      { text: '中文识别也要准确无误', x: 60, y: 160, size: 40, font: 'cjk' },
    ],
  },
  blocks: ['版面解析把文档变成文字中文识别也要准确无误'],
};

/** A paragraph above a picture (a filled rectangle with no text). */
export const withPicture: SampleDocument = {
  page: {
    width: 900,
    height: 700,
    items: [...lines(introduction, 60, 50, 26), { rect: { x: 150, y: 230, width: 600, height: 400 }, fill: '#2f6fb0' }],
  },
  blocks: [introduction.join(' ')],
};

/** A page in PDF points (A5-ish); parsed at 2× it is 840×1190 pixels. */
export const pdfPage: SampleDocument = {
  page: {
    width: 420,
    height: 595,
    items: [
      { text: 'Quarterly Summary', x: 40, y: 40, size: 22 },
      ...lines(['Sales grew in every region this quarter.', 'The north region grew the most of all.'], 40, 110, 13),
    ],
  },
  blocks: ['Quarterly Summary', 'Sales grew in every region this quarter. The north region grew the most of all.'],
};
