import sharp from 'sharp';
import type { RasterImage } from '../layout/page-content.ts';

/** Larger images are refused before their pixels are allocated (a 10 MB PNG can claim any size). */
const maxPixels = 40_000_000;

// Client images are decoded once and never kept (no cache), on the calling thread's share of the
// host: OCR runs one page per core already, so libvips' own thread pool would only contend with it.
sharp.cache(false);
sharp.concurrency(1);

/**
 * The pixels of a PNG or JPEG as it is meant to be seen (turned and mirrored as its EXIF
 * orientation says: phones store portrait photos of documents sideways with an orientation tag,
 * and text read sideways is no text), RGBA with any transparency composed onto white paper; throws on
 * bytes that do not decode. Decoded by libvips (sharp), which reports damaged or truncated files
 * as errors rather than crashing the process, as the canvas library does on some damaged PNGs.
 * Only the two formats are accepted: libvips reads many more (SVG among them), which clients'
 * documents have no reason to reach.
 */
export async function decodeImage(bytes: Uint8Array): Promise<RasterImage> {
  if (!isPng(bytes) && !isJpeg(bytes)) throw new Error('the bytes are neither a PNG nor a JPEG');
  const { data, info } = await sharp(bytes, { limitInputPixels: maxPixels, failOn: 'truncated' })
    .autoOrient()
    .flatten({ background: '#ffffff' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
    .catch((error: unknown) => {
      throw new Error(describe(error));
    });
  if (info.channels !== 4) throw new Error(`the image decoded to ${info.channels} channels, not RGBA`);
  return { width: info.width, height: info.height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength) };
}

function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
}

function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

/** libvips' message, first line only (later lines repeat loader internals). */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const firstLine = (message.split('\n')[0] ?? '').replace(/[:\s]+$/, '');
  return firstLine === '' ? 'the image does not decode' : firstLine;
}
