import { constants, createInflate, type Inflate } from 'node:zlib';

/**
 * What a PDF's compressed streams inflate to, counted as they are decompressed and given up once
 * past `limit`: a PDF of 1 MB can hold a stream that inflates to 1 GB, and pdf.js holds what it
 * inflates in ArrayBuffers outside the JavaScript heap, where a thread's heap limit does not reach.
 * Run before pdf.js opens the file: nothing inflated here is kept (each chunk is counted and
 * dropped), so counting costs CPU in zlib's thread pool and a few kB of memory.
 * Counts the Flate filters at the head of each stream's filter chain (FlateDecode is what PDF
 * writers compress with; a chain of several is inflated through each). Returns the bytes counted,
 * or `undefined` once they pass `limit`.
 */
export async function pdfInflatedBytes(bytes: Uint8Array, limit: number): Promise<number | undefined> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  for (const stream of flateStreams(buffer)) {
    total += await inflatedSize(stream.data, stream.layers, limit - total);
    if (total > limit) return undefined;
  }
  return total;
}

interface FlateStream {
  readonly data: Buffer;
  /** How many FlateDecode filters open the stream's chain. */
  readonly layers: number;
}

const streamKeyword = Buffer.from('stream');
const endStreamKeyword = Buffer.from('endstream');
/** How far back from `stream` its dictionary is looked for: dictionaries of content and font streams are short. */
const dictionaryWindow = 4096;

/** Each stream of the file whose filter chain opens with FlateDecode, with its raw data (between `stream` and `endstream`). */
function* flateStreams(buffer: Buffer): Generator<FlateStream> {
  for (let at = buffer.indexOf(streamKeyword); at >= 0; at = buffer.indexOf(streamKeyword, at + streamKeyword.length)) {
    // `endstream` contains `stream`: skip it.
    if (at >= 3 && buffer.toString('latin1', at - 3, at) === 'end') continue;
    const keywordEnd = at + streamKeyword.length;
    let dataStart = keywordEnd;
    if (buffer[dataStart] === 0x0d) dataStart += 1;
    if (buffer[dataStart] === 0x0a) dataStart += 1;
    // The keyword ends its line; without a line end this is the word inside other data.
    if (dataStart === keywordEnd) continue;
    const head = buffer.toString('latin1', Math.max(0, at - dictionaryWindow), at);
    const dictionary = head.slice(head.lastIndexOf('obj') + 1);
    if (!/>>\s*$/.test(dictionary)) continue;
    const layers = leadingFlateFilters(dictionary);
    const dataEnd = buffer.indexOf(endStreamKeyword, dataStart);
    if (layers === 0) continue;
    yield { data: buffer.subarray(dataStart, dataEnd < 0 ? buffer.length : dataEnd), layers };
    if (dataEnd >= 0) at = dataEnd;
  }
}

/** FlateDecode filters at the head of the dictionary's /Filter (a name or an array of names). */
function leadingFlateFilters(dictionary: string): number {
  const filter = /\/Filter\s*(\/[A-Za-z0-9]+|\[([^\]]*)\])/.exec(dictionary);
  if (filter === null) return 0;
  const names = filter[2] === undefined ? [filter[1] ?? ''] : filter[2].split(/(?=\/)/).map((name) => name.trim());
  let layers = 0;
  for (const name of names) {
    if (name !== '/FlateDecode' && name !== '/Fl') break;
    layers += 1;
  }
  return layers;
}

/** Bytes out of `layers` inflaters in a row, given up just past `budget`; a damaged stream counts what came out before the damage. */
function inflatedSize(data: Buffer, layers: number, budget: number): Promise<number> {
  return new Promise((resolve) => {
    // Z_SYNC_FLUSH: a truncated stream gives what it holds instead of an error, as pdf.js reads it.
    const inflaters: Inflate[] = Array.from({ length: layers }, () => createInflate({ finishFlush: constants.Z_SYNC_FLUSH }));
    const last = inflaters[inflaters.length - 1] as Inflate;
    let total = 0;
    const done = () => {
      for (const inflater of inflaters) inflater.destroy();
      resolve(total);
    };
    for (const [index, inflater] of inflaters.entries()) {
      inflater.once('error', done);
      const next = inflaters[index + 1];
      if (next !== undefined) inflater.pipe(next);
    }
    last.on('data', (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > budget) done();
    });
    last.once('end', done);
    inflaters[0]?.end(data);
  });
}
