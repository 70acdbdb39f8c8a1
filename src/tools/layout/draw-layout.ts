import { createCanvas, ImageData } from '@napi-rs/canvas';
import type { LayoutLabel } from '../../core/ocr/layout-parser.ts';
import type { LayoutBlock } from './analyse-layout.ts';
import type { RasterImage } from './page-content.ts';

/** One colour per label, told apart at a glance (and by the colour-blind: blue, orange, green, magenta). */
const labelColours: Record<LayoutLabel, string> = {
  text: '#1f5fd6',
  table: '#1a9641',
  formula: '#c2185b',
  image: '#e66101',
};

/**
 * The page with each block's box stroked in its label's colour and its reading-order index (its
 * position in `blocks`, from 0, as `layout_details[].index`) on a tag at the box's top left
 * corner, as PNG. Boxes are in page pixels; `pageSize` scales them when the raster was rendered
 * at another size.
 */
export async function drawLayout(
  raster: RasterImage,
  blocks: readonly LayoutBlock[],
  pageSize: { readonly width: number; readonly height: number } = raster,
): Promise<Uint8Array> {
  const { width, height } = raster;
  const scaleX = width / pageSize.width;
  const scaleY = height / pageSize.height;
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.putImageData(new ImageData(new Uint8ClampedArray(raster.data), width, height), 0, 0);
  const lineWidth = Math.max(2, Math.round(Math.min(width, height) / 400));
  const fontSize = Math.max(12, Math.round(Math.min(width, height) / 60));
  const padding = Math.round(fontSize / 4);
  context.font = `bold ${fontSize}px sans-serif`;
  context.textBaseline = 'top';
  blocks.forEach((block, index) => {
    const colour = labelColours[block.label];
    const x = block.box.x0 * scaleX;
    const y = block.box.y0 * scaleY;
    context.strokeStyle = colour;
    context.lineWidth = lineWidth;
    context.strokeRect(x, y, (block.box.x1 - block.box.x0) * scaleX, (block.box.y1 - block.box.y0) * scaleY);
    const tag = String(index);
    const tagWidth = context.measureText(tag).width + 2 * padding;
    const tagHeight = fontSize + 2 * padding;
    // Above the box where there is room, so that the tag hides none of the block's content.
    const tagY = y >= tagHeight ? y - tagHeight : y;
    context.fillStyle = colour;
    context.fillRect(x, tagY, tagWidth, tagHeight);
    context.fillStyle = '#ffffff';
    context.fillText(tag, x + padding, tagY + padding);
  });
  // Awaited before returning: the canvas must outlive its encoding (a collected canvas crashes).
  const png = await canvas.encode('png');
  return png;
}
