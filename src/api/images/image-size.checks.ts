import { invalidField } from '../../core/errors/api-error.ts';
import { platformModels } from '../../core/models/platform-models.ts';

/** The sizes a model takes: a preset list, or a custom WxH within these bounds, as the platform documents them per model. */
export interface ImageSizeRule {
  /** Who the rule is for, in words used in messages. */
  readonly appliesTo: string;
  readonly presets: readonly string[];
  /** The size used when the request gives none (presets[0]). */
  readonly defaultSize: string;
  readonly minSide: number;
  readonly maxSide: number;
  /** Each side of a custom size must be a multiple of this. */
  readonly sideMultiple: number;
  readonly maxPixels: number;
}

export const glmImageSizeRule: ImageSizeRule = {
  appliesTo: 'glm-image',
  presets: ['1280x1280', '1568x1056', '1056x1568', '1472x1088', '1088x1472', '1728x960', '960x1728'],
  defaultSize: '1280x1280',
  minSide: 1024,
  maxSide: 2048,
  sideMultiple: 32,
  maxPixels: 2 ** 22,
};

const otherImageModelSizeRule: ImageSizeRule = {
  appliesTo: 'this model',
  presets: ['1024x1024', '768x1344', '864x1152', '1344x768', '1152x864', '1440x720', '720x1440'],
  defaultSize: '1024x1024',
  minSide: 512,
  maxSide: 2048,
  sideMultiple: 16,
  maxPixels: 2 ** 21,
};

/** `WxH` with positive decimal sides, the one format every model's `size` takes. */
const sizeFormat = /^([1-9][0-9]{0,5})x([1-9][0-9]{0,5})$/;

/**
 * The size rule of a model: glm-image's, the other platform models', or none for an operator's
 * own catalog model (its engine decides; only the WxH format applies).
 */
export function imageSizeRule(model: string): ImageSizeRule | undefined {
  if (model === 'glm-image') return glmImageSizeRule;
  if (platformModels.image.includes(model)) return { ...otherImageModelSizeRule, appliesTo: model };
  return undefined;
}

/**
 * Throws 1214 on `size` when it is not WxH, or, under a rule, neither a preset nor a custom size
 * within the rule's bounds. Shared by the synchronous and asynchronous endpoints.
 */
export function checkImageSize(size: string, rule: ImageSizeRule | undefined): void {
  const format = sizeFormat.exec(size);
  if (format === null) {
    throw invalidField('size', `must be WIDTHxHEIGHT in pixels, for example ${rule?.defaultSize ?? '1024x1024'}`);
  }
  if (rule === undefined || rule.presets.includes(size)) return;
  const width = Number(format[1]);
  const height = Number(format[2]);
  const custom =
    `for ${rule.appliesTo} must be one of ${rule.presets.join(', ')}, or a custom size with each side ` +
    `${rule.minSide} to ${rule.maxSide} and divisible by ${rule.sideMultiple}, at most ${rule.maxPixels} pixels`;
  for (const side of [width, height]) {
    if (side < rule.minSide || side > rule.maxSide) throw invalidField('size', `${custom}; ${side} is out of range`);
    if (side % rule.sideMultiple !== 0) throw invalidField('size', `${custom}; ${side} is not divisible by ${rule.sideMultiple}`);
  }
  if (width * height > rule.maxPixels) {
    throw invalidField('size', `${custom}; ${size} has ${width * height} pixels`);
  }
}
