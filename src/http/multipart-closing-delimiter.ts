import type { Readable } from 'node:stream';

/**
 * Watches a multipart body for its closing delimiter (`--boundary--`). The parser treats a body
 * that simply stops as the end of the form, and drops the part it was in: a form cut short would
 * then be taken without its last field, or with its file stream broken under the reader. Only a
 * body that reached its closing delimiter is a whole form. The search keeps one delimiter's worth
 * of bytes between chunks, so it is linear in the body.
 */
export function watchClosingDelimiter(body: Readable, contentType: string | undefined): { readonly seen: () => boolean } {
  const boundary = boundaryOf(contentType);
  // Without a boundary the parser itself refuses the body.
  if (boundary === undefined) return { seen: () => true };
  const delimiter = Buffer.from(`--${boundary}--`, 'latin1');
  let tail = Buffer.alloc(0);
  let seen = false;
  const onData = (chunk: Buffer) => {
    // The delimiter lies inside this chunk, or straddles the previous one and this.
    const straddling = tail.length > 0 && Buffer.concat([tail, chunk.subarray(0, delimiter.length - 1)]).includes(delimiter);
    if (straddling || chunk.includes(delimiter)) {
      seen = true;
      body.off('data', onData);
      return;
    }
    const keep = delimiter.length - 1;
    tail = chunk.length >= keep ? Buffer.from(chunk.subarray(chunk.length - keep)) : Buffer.concat([tail, chunk]).subarray(-keep);
  };
  body.on('data', onData);
  return { seen: () => seen };
}

function boundaryOf(contentType: string | undefined): string | undefined {
  const match = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType ?? '');
  return match?.[1] ?? match?.[2];
}
