/** Content sent inline in a JSON field: a `data:<type>;base64,` URL or bare base64 (as the Python SDK sends it). */
export interface InlineData {
  /** The data URL's media type, lower-cased; undefined for bare base64. */
  readonly mediaType: string | undefined;
  /** The base64 text without whitespace (MIME encoders wrap lines). */
  readonly base64: string;
  /** How many bytes the base64 decodes to, computed from its length. */
  readonly decodedBytes: number;
}

const dataUrlPrefix = /^data:([^;,]*)(?:;[^,]*)?;base64,/i;
const base64Alphabet = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * Reads inline content without decoding it; undefined when the text is neither a base64 data URL
 * nor valid base64 (standard or URL-safe alphabet, padded or not).
 */
export function parseInlineData(text: string): InlineData | undefined {
  const prefix = dataUrlPrefix.exec(text);
  const body = prefix === null ? text : text.slice(prefix[0].length);
  const base64 = /\s/.test(body) ? body.replace(/\s+/g, '') : body;
  if (!base64Alphabet.test(base64)) return undefined;
  if (base64.endsWith('=') ? base64.length % 4 !== 0 : base64.length % 4 === 1) return undefined;
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  const mediaType = prefix?.[1]?.toLowerCase();
  return {
    mediaType: mediaType === '' ? undefined : mediaType,
    base64,
    decodedBytes: Math.floor((base64.length * 3) / 4) - padding,
  };
}

/** The first bytes of inline content, for telling formats apart by their signatures. */
export function inlineHead(data: InlineData, bytes = 12): Buffer {
  return Buffer.from(data.base64.slice(0, Math.ceil(bytes / 3) * 4), 'base64');
}
