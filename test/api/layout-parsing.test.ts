import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import { decodeImage } from '../../src/tools/raster/decode-image.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { characterErrorRate, digitalPdf, renderPagePng, scannedPdf, type PageSpec } from '../helpers/rendered-documents.ts';
import { chinese, pdfPage, singleColumn, table, tableRows, twoColumns, withPicture } from '../helpers/sample-documents.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

interface Element {
  index: number;
  label: string;
  bbox_2d: number[];
  content: string;
  width: number;
  height: number;
}

interface LayoutAnswer {
  id: string;
  model: string;
  md_results: string;
  layout_details: Element[][];
  layout_visualization: string[];
  data_info: { num_pages: number; pages: { width: number; height: number }[] };
  usage: { total_tokens: number };
  request_id: string;
}

const url = '/paas/v4/layout_parsing';
const base64 = (bytes: Buffer) => bytes.toString('base64');
const textOf = (answer: LayoutAnswer) =>
  answer.layout_details
    .flat()
    .filter((element) => element.label !== 'image')
    .map((element) => element.content);

/** Where each expected block's start appears in the Markdown; increasing means reading order kept. */
function positions(markdown: string, blocks: readonly string[]): number[] {
  return blocks.map((block) => markdown.indexOf(block.split(' ').slice(0, 2).join(' ')));
}

describe('POST /paas/v4/layout_parsing on the in-process PaddleOCR engine', () => {
  let test: TestPlatform;
  let documents: Server;
  let documentsUrl: string;
  const served = new Map<string, Buffer>();

  before(async () => {
    test = await startTestPlatform({ config: { fetch: { allow: ['127.0.0.1'] } } });
    documents = createServer((request, response) => {
      const body = served.get(request.url ?? '');
      response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/octet-stream' }).end(body);
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    documentsUrl = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  });
  after(async () => {
    documents.close();
    await test.close();
  });

  async function parse(body: Record<string, unknown>): Promise<LayoutAnswer> {
    const response = await postJson(test, url, { model: 'glm-ocr', ...body });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as LayoutAnswer;
  }

  async function download(link: string): Promise<Buffer> {
    const response = await test.app.inject({ method: 'GET', url: new URL(link).pathname + new URL(link).search });
    assert.equal(response.statusCode, 200);
    return response.rawPayload;
  }

  it('reads a single-column page: heading first, paragraphs in order, text within the error threshold', async () => {
    const answer = await parse({ file: base64(await renderPagePng(singleColumn.page)), request_id: 'layout-single-1' });
    assert.equal(answer.request_id, 'layout-single-1');
    assert.equal(answer.model, 'glm-ocr');
    assert.deepEqual(answer.data_info, { num_pages: 1, pages: [{ width: 1000, height: 620 }] });
    const elements = answer.layout_details[0] ?? [];
    assert.ok(elements.every((element) => element.width === 1000 && element.height === 620 && element.bbox_2d.every((value) => value >= 0 && value <= 1)));
    assert.deepEqual(
      elements.map((element) => element.label),
      ['text', 'text', 'text'],
    );
    assert.match(answer.md_results, /^# /, 'the large title is a heading');
    assert.ok(characterErrorRate(singleColumn.blocks.join(' '), textOf(answer).join(' ')) <= 0.05, textOf(answer).join(' | '));
    const order = positions(answer.md_results, singleColumn.blocks);
    assert.ok(
      order.every((position, index) => position >= 0 && (index === 0 || position > (order[index - 1] ?? 0))),
      answer.md_results,
    );
  });

  it('reads two columns left before right, under a full-width title', async () => {
    const answer = await parse({ file: `data:image/png;base64,${base64(await renderPagePng(twoColumns.page))}` });
    const order = positions(answer.md_results, twoColumns.blocks);
    assert.ok(
      order.every((position, index) => position >= 0 && (index === 0 || position > (order[index - 1] ?? 0))),
      answer.md_results,
    );
    assert.ok(characterErrorRate(twoColumns.blocks.join(' '), textOf(answer).join(' ')) <= 0.05);
  });

  it('rebuilds a table as HTML with its cells in row order', async () => {
    const answer = await parse({ file: base64(await renderPagePng(table.page)) });
    const tables = (answer.layout_details[0] ?? []).filter((element) => element.label === 'table');
    assert.equal(tables.length, 1, JSON.stringify(answer.layout_details));
    const html = tables[0]?.content ?? '';
    assert.match(html, /^<table>/);
    assert.equal((html.match(/<tr>/g) ?? []).length, tableRows.length);
    const cells = [...html.matchAll(/<t[dh][^>]*>([^<]*)<\/t[dh]>/g)].map((match) => match[1] ?? '');
    assert.ok(characterErrorRate(tableRows.flat().join(' '), cells.join(' ')) <= 0.1, cells.join(' | '));
    assert.ok(answer.md_results.includes('<table>'));
  });

  it('reads Chinese text', async () => {
    const answer = await parse({ file: base64(await renderPagePng(chinese.page)) });
    assert.ok(characterErrorRate(chinese.blocks.join(''), textOf(answer).join('')) <= 0.1, textOf(answer).join(' | '));
  });

  it('takes a digital PDF from its text layer, at 2× its point size', async () => {
    const answer = await parse({ file: base64(await digitalPdf([pdfPage.page])) });
    assert.deepEqual(answer.data_info, { num_pages: 1, pages: [{ width: 840, height: 1190 }] });
    assert.ok(characterErrorRate(pdfPage.blocks.join(' '), textOf(answer).join(' ')) <= 0.02, textOf(answer).join(' | '));
    assert.match(answer.md_results, /^# Quarterly Summary/);
  });

  it('renders and recognises a scanned PDF page', async () => {
    const scan: PageSpec = { ...singleColumn.page };
    const answer = await parse({ file: base64(await scannedPdf([scan])) });
    assert.equal(answer.data_info.num_pages, 1);
    assert.ok(characterErrorRate(singleColumn.blocks.join(' '), textOf(answer).join(' ')) <= 0.08, textOf(answer).join(' | '));
  });

  it('parses the requested page range of a PDF, fetched from a URL through the guard', async () => {
    const pages = ['First page text here', 'Second page text here', 'Third page text here'].map((text) => ({
      width: 420,
      height: 300,
      items: [{ text, x: 40, y: 60, size: 16 }],
    }));
    served.set('/three.pdf', await digitalPdf(pages));
    const answer = await parse({ file: `${documentsUrl}/three.pdf`, start_page_id: 2, end_page_id: 3 });
    assert.equal(answer.data_info.num_pages, 2);
    assert.equal(answer.layout_details.length, 2);
    assert.deepEqual(textOf(answer), ['Second page text here', 'Third page text here']);
  });

  it('crops pictures into the blob store, links them, and draws the layout when asked', async () => {
    const answer = await parse({ file: base64(await renderPagePng(withPicture.page)), return_crop_images: true, need_layout_visualization: true });
    const pictures = (answer.layout_details[0] ?? []).filter((element) => element.label === 'image');
    assert.equal(pictures.length, 1, JSON.stringify(answer.layout_details));
    const picture = pictures[0];
    assert.ok(picture !== undefined);
    assert.match(picture.content, /^http:\/\/.+\.png\?/);
    assert.ok(answer.md_results.includes(`![](${picture.content})`));
    const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = picture.bbox_2d;
    assert.ok(
      Math.abs(x0 - 150 / 900) < 0.03 && Math.abs(y0 - 230 / 700) < 0.03 && Math.abs(x1 - 750 / 900) < 0.03 && Math.abs(y1 - 630 / 700) < 0.03,
      String(picture.bbox_2d),
    );
    const crop = await decodeImage(await download(picture.content));
    assert.ok(Math.abs(crop.width - 600) < 30 && Math.abs(crop.height - 400) < 30, `${crop.width}×${crop.height}`);
    assert.equal(answer.layout_visualization.length, 1);
    const drawn = await decodeImage(await download(answer.layout_visualization[0] ?? ''));
    assert.deepEqual([drawn.width, drawn.height], [900, 700]);
  });

  it('links pictures from the Markdown but leaves their content empty without return_crop_images', async () => {
    const answer = await parse({ file: base64(await renderPagePng(withPicture.page)) });
    const picture = (answer.layout_details[0] ?? []).find((element) => element.label === 'image');
    assert.equal(picture?.content, '');
    assert.match(answer.md_results, /!\[\]\(http:\/\/[^)]+\.png\?[^)]+\)/);
    assert.deepEqual(answer.layout_visualization, []);
  });

  it('refuses a PDF of 31 pages, a range past its end, and corrupt documents', async () => {
    const long = await PDFDocument.create();
    for (let page = 0; page < 31; page++) long.addPage([200, 200]);
    const longPdf = base64(Buffer.from(await long.save()));
    assertPlatformError(await postJson(test, url, { model: 'glm-ocr', file: longPdf }), { status: 400, code: '1214', mentions: ['file', '30'] });
    assertPlatformError(await postJson(test, url, { model: 'glm-ocr', file: longPdf, start_page_id: 40 }), {
      status: 400,
      code: '1214',
      mentions: ['start_page_id', '31'],
    });
    const brokenPng = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]);
    assertPlatformError(await postJson(test, url, { model: 'glm-ocr', file: base64(brokenPng) }), { status: 400, code: '1214', mentions: ['file'] });
    const brokenPdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(300, 0x41)]);
    assertPlatformError(await postJson(test, url, { model: 'glm-ocr', file: base64(brokenPdf) }), { status: 400, code: '1214', mentions: ['file'] });
    served.set('/page.html', Buffer.from('<html>not a document</html>'));
    assertPlatformError(await postJson(test, url, { model: 'glm-ocr', file: `${documentsUrl}/page.html` }), { status: 400, code: '1214', mentions: ['file'] });
  });
});
