import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { drawLayout } from '../../../src/tools/layout/draw-layout.ts';
import type { RasterImage } from '../../../src/tools/layout/page-content.ts';
import { decodeImage } from '../../../src/tools/raster/decode-image.ts';
import { box } from './layout-fixtures.ts';

function whitePage(width: number, height: number): RasterImage {
  return { width, height, data: new Uint8ClampedArray(width * height * 4).fill(255) };
}

function pixel(raster: RasterImage, x: number, y: number): [number, number, number] {
  const offset = (y * raster.width + x) * 4;
  return [raster.data[offset] ?? -1, raster.data[offset + 1] ?? -1, raster.data[offset + 2] ?? -1];
}

describe('drawLayout', () => {
  it('draws each block box in its label colour on a PNG of the page size', async () => {
    const page = whitePage(400, 300);
    const png = await drawLayout(page, [
      { label: 'text', box: box(40, 60, 200, 120), content: 'Hello' },
      { label: 'image', box: box(220, 60, 380, 280), content: '' },
      { label: 'table', box: box(40, 150, 200, 280), content: '<table></table>' },
    ]);
    const drawn = await decodeImage(png);
    assert.equal(drawn.width, 400);
    assert.equal(drawn.height, 300);
    assert.deepEqual(pixel(drawn, 40, 90), [0x1f, 0x5f, 0xd6], 'text box edge is blue');
    assert.deepEqual(pixel(drawn, 380, 200), [0xe6, 0x61, 0x01], 'image box edge is orange');
    assert.deepEqual(pixel(drawn, 120, 280), [0x1a, 0x96, 0x41], 'table box edge is green');
    assert.deepEqual(pixel(drawn, 120, 90), [255, 255, 255], 'inside the box untouched');
    // The index tag sits above the first box's top left corner, filled with the label colour.
    assert.deepEqual(pixel(drawn, 41, 50), [0x1f, 0x5f, 0xd6]);
  });

  it('scales page-pixel boxes onto a raster of another size', async () => {
    const drawn = await decodeImage(
      await drawLayout(whitePage(200, 200), [{ label: 'formula', box: box(20, 20, 80, 80), content: 'x' }], { width: 100, height: 100 }),
    );
    assert.deepEqual(pixel(drawn, 160, 100), [0xc2, 0x18, 0x5b]);
  });
});
