/** A page of an uploaded document as an image URL the browser can show, with its size. */
export interface PageImage {
  readonly url: string;
  readonly width: number;
  readonly height: number;
}

/** The file as a data URL (what the layout-parsing API takes in `file`). */
export function readDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsDataURL(file);
  });
}

/** Each page as an image: an image is its own page; a PDF's pages are rendered with pdf.js. */
export async function pageImages(file: File, dataUrl: string): Promise<PageImage[]> {
  if (file.type !== 'application/pdf') return [{ url: dataUrl, width: 0, height: 0 }];
  const pdfjs = await import('pdfjs-dist');
  const worker = await import('pdfjs-dist/build/pdf.worker.min.mjs?url');
  pdfjs.GlobalWorkerOptions.workerSrc = worker.default;
  const document = await pdfjs.getDocument({ data: new Uint8Array(await file.arrayBuffer()) }).promise;
  const pages: PageImage[] = [];
  for (let number = 1; number <= Math.min(document.numPages, 30); number += 1) {
    const page = await document.getPage(number);
    const viewport = page.getViewport({ scale: 1.5 });
    const canvas = window.document.createElement('canvas');
    canvas.width = viewport.width;
    canvas.height = viewport.height;
    await page.render({ canvas, viewport }).promise;
    pages.push({ url: canvas.toDataURL('image/png'), width: viewport.width, height: viewport.height });
  }
  await document.destroy();
  return pages;
}
