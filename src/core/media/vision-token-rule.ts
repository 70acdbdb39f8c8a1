/**
 * How many prompt tokens the GLM-V vision models (GLM-4.1V, GLM-4.5V, GLM-4.6V) give an image or
 * a video, computed from its size as their Hugging Face processor does (transformers
 * `models/glm4v/image_processing_glm4v.py` `smart_resize` and `Glm4vImageProcessor`,
 * `video_processing_glm4v.py` `Glm4vVideoProcessor.sample_frames`, `processing_glm4v.py`
 * `replace_frame_token_id`; the public processor the engines serving these models run):
 * - the picture is resized to multiples of 28 (patch 14, 2x2 patches merged into one token) with
 *   its pixel count kept within bounds, so one token stands for 28x28 resized pixels;
 * - the chat template writes `<|begin_of_image|><|image|><|end_of_image|>` and the processor turns
 *   the one `<|image|>` into that many, so an image costs its tokens plus two;
 * - a video is sampled at 2 frames a second (600 frames at most past 300 s), to an even count; two
 *   frames make one temporal patch, written as `<|begin_of_image|>` + tokens + `<|end_of_image|>` +
 *   the second it starts at, the whole between `<|begin_of_video|>` and `<|end_of_video|>`.
 */

/** Patch 14 and 2x2 merging: sides are multiples of this, and each factor² pixels is one token. */
const factor = 28;
const temporalPatch = 2;
/** Glm4vImageProcessor `size`: shortest_edge and longest_edge, which smart_resize takes as pixel bounds. */
const imagePixels = { min: 112 * 112, max: 28 * 28 * 15_000 };
/** Glm4vVideoProcessor resizes with smart_resize's own lower bound and its `max_image_size`. */
const videoPixels = { min: 112 * 112, max: 28 * 28 * 2 * 30_000 };
const sampledFramesPerSecond = 2;
const longestSampledSeconds = 300;
/** The processor refuses pictures stretched further than this. */
export const maxAspectRatio = 200;

export interface VideoTiming {
  readonly width: number;
  readonly height: number;
  readonly durationSeconds: number;
  readonly framesPerSecond: number;
  /** Frames in the stream, when the container says; else duration x rate. */
  readonly frameCount: number | undefined;
}

/** Tokens of one image of this size, its begin and end markers included. */
export function imageTokens(width: number, height: number): number {
  const resized = smartResize(temporalPatch, height, width, imagePixels);
  return (resized.height / factor) * (resized.width / factor) + 2;
}

/** Tokens of one video, its markers and the timestamps written between its frames included. */
export function videoTokens(video: VideoTiming): number {
  const frames = sampledFrames(video);
  const resized = smartResize(frames.length, video.height, video.width, videoPixels);
  const perFrame = (resized.height / factor) * (resized.width / factor);
  let tokens = 2; // <|begin_of_video|> <|end_of_video|>
  // Each temporal patch (two sampled frames) is written once, stamped with its first frame's second.
  for (let index = 0; index < frames.length; index += temporalPatch) {
    const second = Math.trunc((frames[index] ?? 0) / video.framesPerSecond);
    tokens += 2 + perFrame + numberTokens(second);
  }
  return tokens;
}

/** Whether the processor takes a picture of these proportions at all. */
export function aspectRatioAllowed(width: number, height: number): boolean {
  return Math.max(width, height) / Math.min(width, height) <= maxAspectRatio;
}

/** The indices of the frames the video processor samples (sample_frames), an even count. */
function sampledFrames(video: VideoTiming): number[] {
  const rate = video.framesPerSecond > 0 ? video.framesPerSecond : sampledFramesPerSecond;
  const total = Math.max(1, video.frameCount ?? Math.round(video.durationSeconds * rate));
  const lastIndex = total - 1;
  const duration = video.durationSeconds > 0 ? video.durationSeconds : Math.round(lastIndex / rate) + 1;
  let indices: number[];
  if (duration <= longestSampledSeconds) {
    const count = Math.floor(duration * sampledFramesPerSecond);
    indices = Array.from({ length: count }, (_, index) => Math.min(lastIndex, Math.ceil((index * rate) / sampledFramesPerSecond)));
  } else {
    const samples = longestSampledSeconds * sampledFramesPerSecond;
    indices =
      samples >= total
        ? Array.from({ length: total }, (_, index) => index)
        : Array.from({ length: samples }, (_, index) => Math.min(lastIndex, Math.ceil(((duration * index) / (samples - 1)) * rate)));
  }
  const unique = [...new Set(indices)];
  if (unique.length === 0) unique.push(0);
  if (unique.length % 2 === 1) unique.push(unique.at(-1) ?? 0);
  return unique;
}

/** smart_resize: sides rounded to multiples of 28, scaled down or up so frames x pixels stay within bounds. */
function smartResize(frames: number, height: number, width: number, pixels: { readonly min: number; readonly max: number }): { height: number; width: number } {
  if (height < factor || width < factor) {
    const scale = Math.max(factor / height, factor / width);
    height = Math.trunc(height * scale);
    width = Math.trunc(width * scale);
  }
  let resizedHeight = roundHalfEven(height / factor) * factor;
  let resizedWidth = roundHalfEven(width / factor) * factor;
  const resizedFrames = roundHalfEven(frames / temporalPatch) * temporalPatch;
  if (resizedFrames * resizedHeight * resizedWidth > pixels.max) {
    const beta = Math.sqrt((frames * height * width) / pixels.max);
    resizedHeight = Math.max(factor, Math.floor(height / beta / factor) * factor);
    resizedWidth = Math.max(factor, Math.floor(width / beta / factor) * factor);
  } else if (resizedFrames * resizedHeight * resizedWidth < pixels.min) {
    const beta = Math.sqrt(pixels.min / (frames * height * width));
    resizedHeight = Math.ceil((height * beta) / factor) * factor;
    resizedWidth = Math.ceil((width * beta) / factor) * factor;
  }
  return { height: resizedHeight, width: resizedWidth };
}

/** Python's round(): halves go to the even neighbour. */
function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const fraction = value - floor;
  if (fraction > 0.5) return floor + 1;
  if (fraction < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** GLM's tokenizer splits digit runs into groups of at most three, one token each. */
function numberTokens(value: number): number {
  return Math.ceil(String(value).length / 3);
}
