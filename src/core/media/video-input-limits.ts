/** Spec Limits: a video input image is at most 5M; read as 5 MiB of decoded bytes. */
export const maxVideoImageBytes = 5 * 1024 * 1024;

/** Spec: a video prompt is at most 512 characters. */
export const maxVideoPromptLength = 512;

/** One input image (URL, data URL or base64) with the dotted path that names it in errors. */
export interface VideoImage {
  readonly field: string;
  readonly source: string;
}
