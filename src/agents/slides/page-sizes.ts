import { invalidField } from '../../core/errors/api-error.ts';

/** A page size in PDF points (1/72 inch). */
export interface PageSize {
  readonly width: number;
  readonly height: number;
}

/** A 16:9 slide, 13.33 × 7.5 inches: PNG pages are then 1280 × 720. */
export const deckPageSize: PageSize = { width: 960, height: 540 };
/** ISO A3 portrait. */
export const posterPageSize: PageSize = { width: 842, height: 1191 };

/** CSS pixels per point: Chromium lays pages out at 96 px per inch. */
const pixelsPerPoint = 96 / 72;
const sideLimits = { min: 72, max: 4000 } as const;
/** A PNG page is decoded whole by clients; 4096² pixels is the largest this agent draws. */
const maxPixels = 4096 * 4096;

/** The PNG size of a page: its CSS pixel size, rounded. */
export function pixelSize(size: PageSize): PageSize {
  return { width: Math.round(size.width * pixelsPerPoint), height: Math.round(size.height * pixelsPerPoint) };
}

export interface PageOverride {
  readonly position: number;
  readonly width: number;
  readonly height: number;
}

/**
 * The size of every page: `base` unless `pages` (custom_variables.pages) gives a position (from 1)
 * another size; a later entry for the same position wins. Positions past the last page and sizes
 * outside 72–4000 pt or over 4096² pixels are refused (1214).
 */
export function resolvePageSizes(pageCount: number, base: readonly PageSize[], overrides: readonly PageOverride[]): PageSize[] {
  const sizes = Array.from({ length: pageCount }, (_unused, index) => base[index] ?? deckPageSize);
  overrides.forEach((override, index) => {
    const path = `custom_variables.pages[${index}]`;
    if (!Number.isInteger(override.position) || override.position < 1 || override.position > pageCount) {
      throw invalidField(`${path}.position`, `must be a page number from 1 to ${pageCount}`);
    }
    for (const side of ['width', 'height'] as const) {
      const value = override[side];
      if (!Number.isFinite(value) || value < sideLimits.min || value > sideLimits.max) {
        throw invalidField(`${path}.${side}`, `must be from ${sideLimits.min} to ${sideLimits.max} (points)`);
      }
    }
    const pixels = pixelSize(override);
    if (pixels.width * pixels.height > maxPixels) {
      throw invalidField(path, `${override.width}×${override.height} pt is ${pixels.width}×${pixels.height} pixels, over ${maxPixels} pixels`);
    }
    sizes[override.position - 1] = { width: override.width, height: override.height };
  });
  return sizes;
}

export function sameSize(first: PageSize, second: PageSize): boolean {
  return first.width === second.width && first.height === second.height;
}
