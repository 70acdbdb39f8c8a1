import { createCanvas, ImageData } from '@napi-rs/canvas';
import type { Box, RasterImage } from '../layout/page-content.ts';

/** One region of a raster as PNG bytes (the box is clamped to the raster and rounded outwards). */
export async function cropPng(raster: RasterImage, box: Box): Promise<Uint8Array> {
  const x0 = Math.max(0, Math.floor(box.x0));
  const y0 = Math.max(0, Math.floor(box.y0));
  const width = Math.max(1, Math.min(raster.width, Math.ceil(box.x1)) - x0);
  const height = Math.max(1, Math.min(raster.height, Math.ceil(box.y1)) - y0);
  const canvas = createCanvas(width, height);
  const whole = new ImageData(new Uint8ClampedArray(raster.data), raster.width, raster.height);
  canvas.getContext('2d').putImageData(whole, -x0, -y0);
  // Awaited here, not returned as is: the canvas must stay referenced until encoding ends, or the
  // garbage collector may free it mid-encode and crash the process.
  const png = await canvas.encode('png');
  return png;
}
