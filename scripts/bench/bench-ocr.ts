// npm run bench:ocr — the PaddleOCR pipeline (in worker threads, as the server runs it) against
// Debian's tesseract 5 (eng; with its default threads and with OMP_THREAD_LIMIT=1) on six A4 pages
// rendered in the same run at 150 dpi (paragraphs, two columns, a table, 8 pt and 16 pt, serif, an
// invoice). Ours is timed two ways: one page at a time (a single-page request), and the page set
// at once (a multi-page document: the pool reads as many pages side by side as it has workers).
// tesseract reads the pages one after another, as its CLI reads a document. Reported: pages per
// minute, CPU seconds per page (all threads) and character error rate, and the ratios.
// All outputs are compared alike: each found line is put where the drawn line its box overlaps
// lies (so neither engine's line order counts), NFKC-normalised, whitespace collapsed.
// Knobs: BENCH_ROUNDS (default 3), BENCH_WORKERS, BENCH_THREADS, BENCH_SIDE_LIMIT, BENCH_BATCH,
// BENCH_CLASSIFY=1, BENCH_PAGES (page numbers to run, e.g. "1,4"), BENCH_TESSERACT=0 (ours only),
// BENCH_DUMP (a folder: pages and compared texts).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import type { Box } from '../../src/tools/layout/page-content.ts';
import { PaddleOcr, type PaddleOcrOptions } from '../../src/tools/ocr/paddle-ocr.ts';
import { decodeImage } from '../../src/tools/raster/decode-image.ts';
import { characterErrorRate, renderPagePng, type PageSpec, type RectItem, type TextItem } from '../../test/helpers/rendered-documents.ts';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? '3');
const dumpDirectory = process.env['BENCH_DUMP'];
const pageFilter = process.env['BENCH_PAGES']?.split(',').map(Number);
const withTesseract = process.env['BENCH_TESSERACT'] !== '0';
const pageWidth = 1240;
const pageHeight = 1754;
const margin = 110;
/** Points to pixels at 150 dpi. */
const points = (size: number) => Math.round((size * 150) / 72);

const sentences = [
  'The committee reviewed the annual budget and approved the revised spending plan for next year.',
  'Most of the measurements were taken in the morning, before the temperature started to rise.',
  'Please return the signed contract to our office no later than the end of the month.',
  'A small change in the design reduced the weight of the frame by almost twelve percent.',
  'The library will be closed on public holidays and open until nine on weekdays.',
  'Our customers expect fast delivery, clear prices and friendly support when something goes wrong.',
  'The report describes three options and recommends the second one for its lower risk.',
  'Water quality in the northern lakes has improved steadily over the last decade.',
  'Each participant received a questionnaire, a pen and a short description of the study.',
  'The new software version fixes several bugs and makes the import of large files faster.',
  'Train services between the two cities will resume on Monday after the repairs are finished.',
  'Revenue grew by 8.5% in the third quarter, driven by strong sales in Europe and Asia.',
  'The museum displays paintings, sculptures and old maps collected by the founder.',
  'Farmers in the valley grow wheat, barley, apples and a little wine on the southern slopes.',
  'If the device does not start, check the battery and press the reset button for ten seconds.',
  'The agreement takes effect on 1 July 2025 and remains valid for a period of three years.',
];

/** mulberry32: the same pages on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), state | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const measure = createCanvas(10, 10).getContext('2d');
const families = { sans: 'DejaVu Sans', serif: 'DejaVu Serif', cjk: 'WenQuanYi Micro Hei' } as const;

/** Paragraph text broken into lines no wider than `width` with the font renderPagePng uses. */
function wrap(text: string, size: number, width: number, font: 'sans' | 'serif' = 'sans'): string[] {
  measure.font = `${size}px "${families[font]}"`;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (line !== '' && measure.measureText(candidate).width > width) {
      lines.push(line);
      line = word;
    } else line = candidate;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** Paragraphs of `count` random sentences set in a column from `top` down to at most `bottom`. */
function column(next: () => number, options: { x: number; top: number; bottom: number; width: number; size: number; font?: 'sans' | 'serif' }): TextItem[] {
  const items: TextItem[] = [];
  const leading = Math.round(options.size * 1.45);
  let y = options.top;
  while (y + leading <= options.bottom) {
    const paragraph = Array.from({ length: 3 }, () => sentences[Math.floor(next() * sentences.length)] ?? '').join(' ');
    for (const text of wrap(paragraph, options.size, options.width, options.font)) {
      if (y + leading > options.bottom) break;
      items.push({ text, x: options.x, y, size: options.size, ...(options.font === undefined ? {} : { font: options.font }) });
      y += leading;
    }
    y += Math.round(leading * 0.6);
  }
  return items;
}

function heading(text: string, y: number, size: number): TextItem {
  return { text, x: margin, y, size, bold: true };
}

function tablePage(): (TextItem | RectItem)[] {
  const items: (TextItem | RectItem)[] = [heading('Quarterly results by region', margin, points(18))];
  const headers = ['Region', 'Units', 'Revenue', 'Growth', 'Manager'];
  const columns = [margin, margin + 260, margin + 430, margin + 640, margin + 800];
  const names = ['North', 'South', 'East', 'West', 'Central', 'Islands', 'Mountains', 'Coast', 'Valley', 'Lakes'];
  const managers = ['A. Smith', 'B. Jones', 'C. Brown', 'D. Miller', 'E. Davis', 'F. Wilson', 'G. Moore', 'H. Taylor', 'I. Clark', 'J. Lewis'];
  const size = points(11);
  const rowHeight = 46;
  const top = margin + 90;
  for (let row = 0; row <= 24; row++) {
    const y = top + row * rowHeight;
    items.push({ rect: { x: margin - 10, y: y - 10, width: pageWidth - 2 * margin + 20, height: 2 }, fill: '#000000' });
    const cells =
      row === 0
        ? headers
        : [
            `${names[row % names.length] ?? ''} ${Math.ceil(row / names.length)}`,
            String(1000 + ((row * 7919) % 9000)),
            `$${(((row * 104729) % 900000) / 100).toFixed(2)}`,
            `${(((row * 37) % 40) - 12).toFixed(1)}%`,
            managers[row % managers.length] ?? '',
          ];
    cells.forEach((text, index) => items.push({ text, x: columns[index] ?? margin, y, size, bold: row === 0 }));
  }
  return items;
}

function invoicePage(): (TextItem | RectItem)[] {
  const size = points(10);
  const items: (TextItem | RectItem)[] = [
    heading('INVOICE No. 2025-0417', margin, points(20)),
    { text: 'Northwind Supplies Ltd, 12 Harbour Road, Bristol BS1 4QA', x: margin, y: margin + 70, size },
    { text: 'VAT GB 123 4567 89    Phone +44 117 496 0123    billing@northwind.example', x: margin, y: margin + 105, size },
    { text: 'Date: 21/11/2025    Due: 21/12/2025    Customer ref: PO-88231', x: margin, y: margin + 140, size },
  ];
  const products = [
    'Copy paper A4, 80 g',
    'Toner cartridge TN-2420',
    'Stapler, heavy duty',
    'Ring binders (pack of 10)',
    'USB-C cable, 2 m',
    'Desk lamp LED 9 W',
    'Whiteboard markers x4',
    'Envelopes C5 (500)',
  ];
  for (let row = 0; row < 16; row++) {
    const y = margin + 220 + row * 44;
    const quantity = 1 + ((row * 5) % 12);
    const price = 2.5 + ((row * 3.75) % 40);
    items.push({ text: `${row + 1}. ${products[row % products.length] ?? ''}`, x: margin, y, size });
    items.push({ text: `${quantity} x ${price.toFixed(2)}`, x: margin + 600, y, size });
    items.push({ text: `EUR ${(quantity * price).toFixed(2)}`, x: margin + 820, y, size });
  }
  items.push({ text: 'Total due: EUR 4,318.75 (incl. VAT 20%)', x: margin + 520, y: margin + 960, size: points(12), bold: true });
  items.push(...column(random(6), { x: margin, top: margin + 1040, bottom: pageHeight - margin, width: pageWidth - 2 * margin, size: points(9) }));
  return items;
}

function pages(): PageSpec[] {
  const full = pageWidth - 2 * margin;
  const half = (full - 50) / 2;
  const bottom = pageHeight - margin;
  const specs: (TextItem | RectItem)[][] = [
    [
      heading('Annual report of the water board', margin, points(18)),
      ...column(random(1), { x: margin, top: margin + 70, bottom, width: full, size: points(11) }),
    ],
    [
      heading('Two columns of news', margin, points(16)),
      ...column(random(2), { x: margin, top: margin + 60, bottom, width: half, size: points(10) }),
      ...column(random(3), { x: margin + half + 50, top: margin + 60, bottom, width: half, size: points(10) }),
    ],
    tablePage(),
    [
      heading('Small print', margin, points(28)),
      ...column(random(4), { x: margin, top: margin + 90, bottom: 900, width: full, size: points(8) }),
      heading('Large type', 940, points(24)),
      ...column(random(5), { x: margin, top: 1020, bottom, width: full, size: points(16) }),
    ],
    [
      heading('Minutes of the meeting', margin, points(16)),
      ...column(random(7), { x: margin, top: margin + 60, bottom, width: full, size: points(11), font: 'serif' }),
    ],
    invoicePage(),
  ];
  return specs.map((items) => ({ width: pageWidth, height: pageHeight, items }));
}

interface Line {
  readonly text: string;
  readonly box: Box;
}

/** The drawn lines, boxes measured with the fonts renderPagePng uses. */
function expectedLines(page: PageSpec): Line[] {
  return page.items.flatMap((item) => {
    if (!('text' in item)) return [];
    measure.font = `${item.bold === true ? 'bold ' : ''}${item.size}px "${families[item.font ?? 'sans']}"`;
    const width = measure.measureText(item.text).width;
    return [{ text: item.text, box: { x0: item.x, y0: item.y, x1: item.x + width, y1: item.y + item.size * 1.2 } }];
  });
}

function overlap(a: Box, b: Box): number {
  return Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
}

/**
 * An engine's lines put in the drawn order, so that only reading errors count, not the order an
 * engine lists lines in (columns, cells): each found line goes to the drawn line its box overlaps
 * most, fragments of one drawn line are joined left to right, lines that overlap none come last.
 */
function alignedText(expected: readonly Line[], found: readonly Line[]): string {
  const groups = expected.map((): Line[] => []);
  const leftovers: Line[] = [];
  for (const line of found) {
    let best = -1;
    let bestOverlap = 0;
    expected.forEach((drawn, index) => {
      const shared = overlap(line.box, drawn.box);
      if (shared > bestOverlap) [best, bestOverlap] = [index, shared];
    });
    (groups[best] ?? leftovers).push(line);
  }
  const text = (lines: readonly Line[]) =>
    [...lines]
      .sort((a, b) => a.box.x0 - b.box.x0)
      .map((line) => line.text)
      .join(' ');
  return [...groups.map(text), ...leftovers.map((line) => line.text)].join('\n').normalize('NFKC');
}

interface Measured {
  readonly lines: Line[];
  readonly seconds: number;
  /** User + system CPU seconds: steadier than wall time on a shared machine. */
  readonly cpuSeconds: number;
}

async function runOurs(ocr: PaddleOcr, png: Uint8Array): Promise<Measured> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const lines = await ocr.recognize(await decodeImage(png));
  const used = process.cpuUsage(cpu);
  return { lines, seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** All pages given to the recogniser at once, as the pages of one scan in a PDF are. */
async function runDocument(ocr: PaddleOcr, pngs: readonly Uint8Array[]): Promise<{ pages: Line[][]; seconds: number; cpuSeconds: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const pages = await Promise.all(pngs.map(async (png) => ocr.recognize(await decodeImage(png))));
  const used = process.cpuUsage(cpu);
  return { pages, seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** tesseract's TSV output (same recognition as plain text), timed by /usr/bin/time for its CPU use. */
function runTesseract(file: string, threadLimit?: number): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const environment = threadLimit === undefined ? process.env : { ...process.env, OMP_THREAD_LIMIT: String(threadLimit) };
    const timeFile = `${file}.time`;
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, 'tesseract', file, 'stdout', '-l', 'eng', 'tsv'], {
      env: environment,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`tesseract exited with ${code}`));
      const [user = 0, system = 0] = readFileSync(timeFile, 'utf8').trim().split(' ').map(Number);
      resolve({
        lines: tesseractLines(Buffer.concat(chunks).toString('utf8')),
        seconds: (performance.now() - started) / 1000,
        cpuSeconds: user + system,
      });
    });
  });
}

/** Lines from tesseract's TSV: words (level 5) grouped by block, paragraph and line. */
function tesseractLines(tsv: string): Line[] {
  const lines = new Map<string, { words: string[]; box: { x0: number; y0: number; x1: number; y1: number } }>();
  for (const row of tsv.split('\n').slice(1)) {
    const [level, , block, paragraph, line, , left, top, width, height, , text] = row.split('\t');
    if (level !== '5' || text === undefined || text.trim() === '') continue;
    const key = `${block}.${paragraph}.${line}`;
    const [x, y, w, h] = [left, top, width, height].map(Number) as [number, number, number, number];
    const entry = lines.get(key) ?? { words: [], box: { x0: x, y0: y, x1: x + w, y1: y + h } };
    entry.words.push(text);
    entry.box = { x0: Math.min(entry.box.x0, x), y0: Math.min(entry.box.y0, y), x1: Math.max(entry.box.x1, x + w), y1: Math.max(entry.box.y1, y + h) };
    lines.set(key, entry);
  }
  return [...lines.values()].map((entry) => ({ text: entry.words.join(' '), box: entry.box }));
}

interface Engine {
  readonly name: string;
  readonly run: (page: number) => Promise<Measured>;
  /** Per page: wall and CPU seconds of each round, and the error rate. */
  readonly seconds: number[][];
  readonly cpuSeconds: number[][];
  readonly errorRates: number[];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

interface Summary {
  readonly name: string;
  readonly perMinute: number;
  readonly cpuSecondsPerPage: number;
  readonly errorRate: number;
}

function printSummaries(summaries: readonly Summary[]): void {
  console.log(`\n${'engine'.padEnd(38)} | pages/min | CPU s/page | CER`);
  for (const summary of summaries) {
    console.log(
      `${summary.name.padEnd(38)} | ${summary.perMinute.toFixed(1).padStart(9)} | ${summary.cpuSecondsPerPage.toFixed(2).padStart(10)} | ${(summary.errorRate * 100).toFixed(2)}%`,
    );
  }
  const ours = summaries.filter((summary) => summary.name.startsWith('PaddleOcr'));
  for (const baseline of summaries.filter((summary) => summary.name.startsWith('tesseract'))) {
    for (const item of ours) {
      console.log(
        `${item.name} / ${baseline.name}: speed ${(item.perMinute / baseline.perMinute).toFixed(2)}x wall, ` +
          `${(baseline.cpuSecondsPerPage / item.cpuSecondsPerPage).toFixed(2)}x per CPU second (target >= 1.00x); ` +
          `CER ${(item.errorRate / baseline.errorRate).toFixed(2)}x (target < 1.00x)`,
      );
    }
  }
}

async function main(): Promise<void> {
  const options: PaddleOcrOptions = {
    ...(process.env['BENCH_WORKERS'] === undefined ? {} : { workers: Number(process.env['BENCH_WORKERS']) }),
    ...(process.env['BENCH_SIDE_LIMIT'] === undefined ? {} : { detectionSideLimit: Number(process.env['BENCH_SIDE_LIMIT']) }),
    ...(process.env['BENCH_THREADS'] === undefined ? {} : { threads: Number(process.env['BENCH_THREADS']) }),
    ...(process.env['BENCH_BATCH'] === undefined ? {} : { recognitionBatchSize: Number(process.env['BENCH_BATCH']) }),
    ...(process.env['BENCH_CLASSIFY'] === '1' ? { classifyDirection: true } : {}),
  };
  const ocr = new PaddleOcr(options);
  const directory = mkdtempSync(join(tmpdir(), 'bench-ocr-'));
  const specs = pages();
  const names = ['paragraphs 11 pt', 'two columns 10 pt', 'table 11 pt', '8 pt + 16 pt', 'serif 11 pt', 'invoice 9-12 pt'];
  const chosen = specs.map((_, index) => index).filter((index) => pageFilter === undefined || pageFilter.includes(index + 1));
  // One at a time: with several renders in flight @napi-rs/canvas crashed (renderPagePng lets the
  // canvas be collected while its PNG is encoded on the thread pool).
  const rendered: Buffer[] = [];
  for (const spec of specs) rendered.push(await renderPagePng(spec));
  const files = rendered.map((png, index) => {
    const file = join(directory, `page-${index + 1}.png`);
    writeFileSync(file, png);
    return file;
  });
  // The server keeps its workers and their models loaded: that one-off start is not a per-page cost.
  const loadStart = performance.now();
  await ocr.warmUp();
  const warmUp = (performance.now() - loadStart) / 1000;

  const engine = (name: string, run: (page: number) => Promise<Measured>): Engine => ({
    name,
    run,
    seconds: specs.map(() => []),
    cpuSeconds: specs.map(() => []),
    errorRates: specs.map(() => 0),
  });
  const engines = [
    engine('PaddleOcr (ours)', (page) => runOurs(ocr, rendered[page] ?? new Uint8Array())),
    ...(withTesseract
      ? [engine('tesseract', (page) => runTesseract(files[page] ?? '')), engine('tesseract 1 thread', (page) => runTesseract(files[page] ?? '', 1))]
      : []),
  ];
  const drawn = specs.map(expectedLines);
  const expected = drawn.map((lines) =>
    lines
      .map((line) => line.text)
      .join('\n')
      .normalize('NFKC'),
  );
  const lengths = expected.map((text) => text.replace(/\s+/g, ' ').length);
  console.log(
    `${chosen.length} A4 pages (${pageWidth}x${pageHeight}, 150 dpi), ${rounds} round(s), engines interleaved page by page, then the page set at once; ` +
      `PaddleOcr options ${JSON.stringify(options)} (${ocr.parallelism} worker(s))`,
  );
  console.log(
    `machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}), load average ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' ')}, Node ${process.version}; workers started and models loaded in ${warmUp.toFixed(2)} s`,
  );
  const documentSeconds: number[] = [];
  const documentCpuSeconds: number[] = [];
  let documentErrors = 0;
  for (let round = 0; round < rounds; round++) {
    for (const page of chosen) {
      for (const item of engines) {
        const measured = await item.run(page);
        item.seconds[page]?.push(measured.seconds);
        item.cpuSeconds[page]?.push(measured.cpuSeconds);
        const text = alignedText(drawn[page] ?? [], measured.lines);
        item.errorRates[page] = characterErrorRate(expected[page] ?? '', text);
        if (dumpDirectory !== undefined && round === 0) {
          mkdirSync(dumpDirectory, { recursive: true });
          writeFileSync(join(dumpDirectory, `page-${page + 1}.png`), rendered[page] ?? new Uint8Array());
          writeFileSync(join(dumpDirectory, `page-${page + 1}-expected.txt`), expected[page] ?? '');
          writeFileSync(join(dumpDirectory, `page-${page + 1}-${item.name.replace(/\W+/g, '-')}.txt`), text);
        }
      }
    }
    const document = await runDocument(
      ocr,
      chosen.map((page) => rendered[page] ?? new Uint8Array()),
    );
    documentSeconds.push(document.seconds);
    documentCpuSeconds.push(document.cpuSeconds);
    documentErrors = chosen.reduce(
      (total, page, index) =>
        total + characterErrorRate(expected[page] ?? '', alignedText(drawn[page] ?? [], document.pages[index] ?? [])) * (lengths[page] ?? 0),
      0,
    );
  }
  rmSync(directory, { recursive: true, force: true });

  console.log(`\none page at a time: median seconds per page (CPU seconds) and CER`);
  console.log(['page'.padEnd(18), 'chars', ...engines.map((item) => item.name.padStart(26))].join(' | '));
  for (const page of chosen) {
    const cells = engines.map((item) => {
      const time = `${median(item.seconds[page] ?? []).toFixed(2)} s (${median(item.cpuSeconds[page] ?? []).toFixed(2)})`;
      return `${time} ${((item.errorRates[page] ?? 0) * 100).toFixed(2).padStart(6)}%`.padStart(26);
    });
    console.log([(names[page] ?? '').padEnd(18), String(lengths[page]).padStart(5), ...cells].join(' | '));
  }
  const characters = chosen.reduce((total, page) => total + (lengths[page] ?? 0), 0);
  const summary = (item: Engine): Summary => {
    const seconds = chosen.reduce((total, page) => total + median(item.seconds[page] ?? []), 0);
    const cpuSeconds = chosen.reduce((total, page) => total + median(item.cpuSeconds[page] ?? []), 0);
    const errors = chosen.reduce((total, page) => total + (item.errorRates[page] ?? 0) * (lengths[page] ?? 0), 0);
    return { name: item.name, perMinute: (60 * chosen.length) / seconds, cpuSecondsPerPage: cpuSeconds / chosen.length, errorRate: errors / characters };
  };
  console.log(
    `\nthe ${chosen.length} pages at once (${ocr.parallelism} worker(s)), per round: ` +
      documentSeconds.map((seconds, index) => `${seconds.toFixed(2)} s (${(documentCpuSeconds[index] ?? 0).toFixed(2)} CPU)`).join(', '),
  );
  const [ours, ...baselines] = engines.map(summary);
  printSummaries([
    ...(ours === undefined ? [] : [{ ...ours, name: 'PaddleOcr (ours), one page at a time' }]),
    {
      name: `PaddleOcr (ours), ${chosen.length} pages at once`,
      perMinute: (60 * chosen.length) / median(documentSeconds),
      cpuSecondsPerPage: median(documentCpuSeconds) / chosen.length,
      errorRate: documentErrors / characters,
    },
    ...baselines,
  ]);
}

await main();
