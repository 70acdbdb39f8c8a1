/** One part of a hand-made multipart body: names, file names and headers are written exactly as given. */
export interface RawPart {
  readonly name: string;
  readonly value: string | Uint8Array;
  /** Present for a file part. */
  readonly filename?: string;
  readonly contentType?: string;
  /** Replaces the part's header block (for broken part headers). */
  readonly rawHeaders?: string;
}

const fuzzBoundary = '----fuzz-boundary-7d1e5a';

/**
 * A multipart/form-data body written byte by byte (FormData would escape the odd names and file
 * names the fuzzer wants to send), optionally without its closing boundary.
 */
export function encodeMultipart(parts: readonly RawPart[], options: { closing?: boolean; boundary?: string } = {}): { payload: Buffer; contentType: string } {
  const boundary = options.boundary ?? fuzzBoundary;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if (part.rawHeaders !== undefined) {
      chunks.push(Buffer.from(part.rawHeaders, 'latin1'));
    } else {
      const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${part.name}"${filename}\r\n`, 'utf8'));
      if (part.contentType !== undefined) chunks.push(Buffer.from(`Content-Type: ${part.contentType}\r\n`, 'latin1'));
    }
    chunks.push(Buffer.from('\r\n'));
    chunks.push(typeof part.value === 'string' ? Buffer.from(part.value, 'utf8') : Buffer.from(part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  if (options.closing !== false) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
