import { createCanvas, loadImage } from '@napi-rs/canvas';
import type { RasterImage } from '../layout/page-content.ts';

/** The pixels of a PNG or JPEG; throws on bytes that do not decode. */
export async function decodeImage(bytes: Uint8Array): Promise<RasterImage> {
  const image = await loadImage(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (image.width === 0 || image.height === 0) throw new Error('the image has no pixels');
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  // JPEG has no alpha and PNG may: a white background gives transparent pixels the paper colour.
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, image.width, image.height);
  context.drawImage(image, 0, 0);
  const pixels = context.getImageData(0, 0, image.width, image.height);
  return { width: image.width, height: image.height, data: pixels.data };
}
