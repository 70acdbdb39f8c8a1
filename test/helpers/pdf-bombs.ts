import { createDeflate, deflateSync } from 'node:zlib';

/**
 * `bytes` bytes of spaces, deflated as they stream (never held whole): spaces are a valid page
 * content stream, and deflate packs them about 1,000 to 1.
 */
async function deflatedSpaces(bytes: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    deflate.once('end', resolve);
    deflate.once('error', reject);
  });
  const block = Buffer.alloc(1024 * 1024, 0x20);
  for (let written = 0; written < bytes; written += block.length) {
    if (!deflate.write(block)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  return Buffer.concat(out);
}

/** A one-page PDF whose page content is `stream` under `filters` (and `resources`), with a correct cross-reference table. */
function pdfWithContent(stream: Buffer, filters: string, resources = ''): Buffer {
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R ${resources}>>`),
    Buffer.concat([Buffer.from(`<< /Length ${stream.length} /Filter ${filters} >>\nstream\n`), stream, Buffer.from('\nendstream')]),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  const offsets: number[] = [];
  let length = parts[0]?.length ?? 0;
  objects.forEach((object, index) => {
    offsets.push(length);
    const part = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), object, Buffer.from('\nendobj\n')]);
    parts.push(part);
    length += part.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`)].join(
    '',
  );
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A PDF of about `inflatedBytes / 1000` bytes whose one content stream inflates to `inflatedBytes`. */
export async function inflatingPdf(inflatedBytes: number): Promise<Buffer> {
  return pdfWithContent(await deflatedSpaces(inflatedBytes), '/FlateDecode');
}

/** The same stream deflated twice (a chain of two FlateDecode filters): a few kB that inflate to `inflatedBytes`. */
export async function doublyInflatingPdf(inflatedBytes: number): Promise<Buffer> {
  return pdfWithContent(deflateSync(await deflatedSpaces(inflatedBytes), { level: 9 }), '[/FlateDecode /FlateDecode]');
}

/** A small PDF whose page says `text` (Helvetica), its content stream deflated: what a real upload looks like. */
export function textPdf(text: string): Buffer {
  const content = deflateSync(Buffer.from(`BT /F1 12 Tf 72 720 Td (${text}) Tj ET`));
  return pdfWithContent(content, '/FlateDecode', '/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> ');
}
