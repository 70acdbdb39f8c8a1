import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import type { RasterImage } from '../layout/page-content.ts';

/** Larger images are refused before their pixels are allocated (a 10 MB PNG can claim any size). */
const maxPixels = 40_000_000;

/**
 * The pixels of a PNG or JPEG; throws on bytes that do not decode. Decoded in JavaScript
 * (pngjs, jpeg-js), not by the native canvas: the documents come from clients, and the canvas
 * library crashes the whole process on some damaged PNGs instead of throwing.
 */
export async function decodeImage(bytes: Uint8Array): Promise<RasterImage> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoded = buffer[0] === 0xff && buffer[1] === 0xd8 ? decodeJpeg(buffer) : decodePng(buffer);
  if (decoded.width === 0 || decoded.height === 0) throw new Error('the image has no pixels');
  return { width: decoded.width, height: decoded.height, data: onWhite(decoded.data) };
}

function decodePng(buffer: Buffer): { width: number; height: number; data: Uint8Array } {
  const header = readPngSize(buffer);
  if (header.width * header.height > maxPixels)
    throw new Error(`the image is ${header.width}×${header.height} pixels, more than ${maxPixels / 1_000_000} million`);
  const png = PNG.sync.read(buffer);
  return { width: png.width, height: png.height, data: png.data };
}

function decodeJpeg(buffer: Buffer): { width: number; height: number; data: Uint8Array } {
  return jpeg.decode(buffer, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: maxPixels / 1_000_000, maxMemoryUsageInMB: 512 });
}

/** The size an IHDR chunk claims, read before decoding. */
function readPngSize(buffer: Buffer): { width: number; height: number } {
  if (buffer.length < 24 || buffer.toString('latin1', 12, 16) !== 'IHDR') throw new Error('the PNG has no header chunk');
  return { width: buffer.readUInt32BE(16), height: buffer.readUInt32BE(20) };
}

/** RGBA with transparent pixels composed onto white paper (PNG alpha; JPEG has none). */
function onWhite(data: Uint8Array): Uint8ClampedArray {
  const pixels = new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength);
  for (let index = 0; index < pixels.length; index += 4) {
    const alpha = pixels[index + 3] ?? 255;
    if (alpha === 255) continue;
    const paper = 255 * (1 - alpha / 255);
    pixels[index] = (pixels[index] ?? 0) * (alpha / 255) + paper;
    pixels[index + 1] = (pixels[index + 1] ?? 0) * (alpha / 255) + paper;
    pixels[index + 2] = (pixels[index + 2] ?? 0) * (alpha / 255) + paper;
    pixels[index + 3] = 255;
  }
  return pixels;
}
