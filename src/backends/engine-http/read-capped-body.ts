import { AnswerOverCapError } from './answer-over-cap-error.ts';

/**
 * Reads a whole answer body of at most `maxBytes`. Past the cap the read stops, the body is
 * destroyed (leaving the loop closes it, and undici drops its connection) and an
 * AnswerOverCapError names the cap: an engine cannot make the platform hold more than that.
 */
export async function readCappedBody(body: AsyncIterable<Uint8Array>, maxBytes: number, what: string, setting?: string): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > maxBytes) throw new AnswerOverCapError(what, maxBytes, 'bytes', setting);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}
