import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import sharp from 'sharp';
import type { RasterImage } from '../../../src/tools/layout/page-content.ts';
import { decodeImage } from '../../../src/tools/raster/decode-image.ts';
import { renderPagePng } from '../../helpers/rendered-documents.ts';

function pixel(raster: RasterImage, x: number, y: number): number[] {
  const offset = (y * raster.width + x) * 4;
  return Array.from(raster.data.subarray(offset, offset + 4));
}

/** A 40×30 PNG: half-transparent red on the left half, fully transparent on the right. */
async function translucentPng(): Promise<Buffer> {
  const canvas = createCanvas(40, 30);
  const context = canvas.getContext('2d');
  context.fillStyle = 'rgba(255, 0, 0, 0.5)';
  context.fillRect(0, 0, 20, 30);
  const png = await canvas.encode('png');
  return png;
}

/** A 64×48 JPEG: black on the left half, white on the right. */
async function halfDarkJpeg(): Promise<Buffer> {
  const canvas = createCanvas(64, 48);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, 64, 48);
  context.fillStyle = '#000000';
  context.fillRect(0, 0, 32, 48);
  return canvas.encode('jpeg', 95);
}

/** The PNG with its header claiming another size (the header's checksum recomputed, so it reads as valid). */
function withClaimedSize(png: Buffer, width: number, height: number): Buffer {
  const copy = Buffer.from(png);
  copy.writeUInt32BE(width, 16);
  copy.writeUInt32BE(height, 20);
  copy.writeUInt32BE(crc32(copy.subarray(12, 29)), 29);
  return copy;
}

describe('decodeImage', () => {
  it('decodes a PNG to RGBA with transparency composed onto white paper', async () => {
    const raster = await decodeImage(await translucentPng());
    assert.equal(raster.width, 40);
    assert.equal(raster.height, 30);
    assert.equal(raster.data.length, 40 * 30 * 4);
    const [red, green, blue, alpha] = pixel(raster, 5, 5);
    assert.equal(red, 255);
    assert.ok(Math.abs((green ?? 0) - 128) <= 1 && Math.abs((blue ?? 0) - 128) <= 1, `half-transparent red on white is pink, got ${green}, ${blue}`);
    assert.equal(alpha, 255);
    assert.deepEqual(pixel(raster, 30, 5), [255, 255, 255, 255], 'a transparent pixel is white paper');
  });

  it('decodes a JPEG to opaque RGBA', async () => {
    const raster = await decodeImage(await halfDarkJpeg());
    assert.equal(raster.width, 64);
    assert.equal(raster.height, 48);
    const [dark] = pixel(raster, 8, 24);
    const [light, , , alpha] = pixel(raster, 56, 24);
    assert.ok((dark ?? 255) < 16 && (light ?? 0) > 240, `black then white, got ${dark} and ${light}`);
    assert.equal(alpha, 255);
  });

  it('turns a JPEG as its EXIF orientation says (a phone photo stored sideways reads upright)', async () => {
    // Orientation 6: the stored pixels are shown turned 90° clockwise, so the dark left half is shown on top.
    const sideways = await sharp(await halfDarkJpeg())
      .withMetadata({ orientation: 6 })
      .jpeg({ quality: 95 })
      .toBuffer();
    assert.equal((await sharp(sideways).metadata()).orientation, 6);
    const raster = await decodeImage(sideways);
    assert.equal(raster.width, 48);
    assert.equal(raster.height, 64);
    const [top] = pixel(raster, 24, 8);
    const [bottom] = pixel(raster, 24, 56);
    assert.ok((top ?? 255) < 16 && (bottom ?? 0) > 240, `dark on top, light below, got ${top} and ${bottom}`);
  });

  it('throws, naming the fault, on a truncated PNG, a truncated JPEG and bytes that are no image', async () => {
    const png = await renderPagePng({ width: 300, height: 200, items: [{ text: 'cut short', x: 10, y: 10, size: 24 }] });
    await assert.rejects(decodeImage(png.subarray(0, Math.floor(png.length / 2))), /libpng|read error|truncated/i);
    await assert.rejects(decodeImage(png.subarray(0, 40)), Error);
    const jpeg = await createCanvas(200, 100).encode('jpeg');
    await assert.rejects(decodeImage(jpeg.subarray(0, jpeg.length - 100)), Error);
    await assert.rejects(decodeImage(Buffer.from('GIF89a, not a PNG or a JPEG')), /neither a PNG nor a JPEG/);
    await assert.rejects(decodeImage(new Uint8Array(0)), /neither a PNG nor a JPEG/);
  });

  it('refuses an image that claims more than 40 million pixels before allocating them', async () => {
    await assert.rejects(decodeImage(withClaimedSize(await translucentPng(), 10_000, 10_000)), /pixel limit/i);
  });
});
