/**
 * What a file is, read from its first bytes rather than from a name or a header an engine or a
 * client chose: the check that stands between "bytes" and "an image".
 */
export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
export type VideoType = 'video/mp4' | 'video/quicktime' | 'video/webm';

const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function imageTypeOf(bytes: Uint8Array): ImageType | undefined {
  if (startsWith(bytes, png)) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') return 'image/gif';
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/** MP4 and QuickTime (an ISO base media `ftyp` box first) and WebM/Matroska (EBML header). */
export function videoTypeOf(bytes: Uint8Array): VideoType | undefined {
  if (ascii(bytes, 4, 8) === 'ftyp') return ascii(bytes, 8, 12) === 'qt  ' ? 'video/quicktime' : 'video/mp4';
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3])) return 'video/webm';
  return undefined;
}

/** Width and height of a PNG (IHDR) or JPEG (first SOF segment); undefined for other bytes. */
export function imageDimensions(bytes: Uint8Array): { readonly width: number; readonly height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = imageTypeOf(bytes);
  if (type === 'image/png') {
    return bytes.length >= 24 ? { width: view.getUint32(16), height: view.getUint32(20) } : undefined;
  }
  if (type !== 'image/jpeg') return undefined;
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1] ?? 0;
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    const length = view.getUint16(offset + 2);
    // SOF0-SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: view.getUint16(offset + 5), width: view.getUint16(offset + 7) };
    }
    offset += 2 + length;
  }
  return undefined;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((value, index) => bytes[index] === value);
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return bytes.length >= end ? Buffer.from(bytes.subarray(start, end)).toString('latin1') : '';
}
