/**
 * Text of a fetched body in the right character encoding. The order is the HTML standard's,
 * simplified: a byte-order mark, then the Content-Type charset, then a `<meta charset>` or
 * `<meta http-equiv="Content-Type">` (or an XML declaration) in the first bytes, then UTF-8.
 * TextDecoder knows the WHATWG encodings (windows-125x, ISO-8859-x, GBK/GB18030, Big5, Shift_JIS,
 * EUC-KR, …); an unknown label is skipped, not fatal.
 */
export function decodeText(bytes: Uint8Array, headerCharset: string | undefined, markup: boolean): string {
  const encoding = detectEncoding(bytes, headerCharset, markup);
  // Decoders drop the BOM of their own encoding; invalid bytes become U+FFFD instead of failing.
  const text = new TextDecoder(encoding).decode(bytes);
  return encoding === 'windows-1252' ? fixWindows1252(text) : text;
}

/**
 * WHATWG windows-1252 (also what `iso-8859-1`, `latin1` and `us-ascii` mean on the web) for bytes
 * 0x80–0x9F. Node 20's TextDecoder decodes these bytes as ISO-8859-1 control characters instead
 * (so "\x93quoted\x94" loses its quotes); the five bytes the table leaves undefined stay as they are.
 */
const windows1252High = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d,
  0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function fixWindows1252(text: string): string {
  return text.replace(/[\u0080-\u009f]/g, (character) => String.fromCharCode(windows1252High[character.charCodeAt(0) - 0x80] ?? character.charCodeAt(0)));
}

/** The WHATWG name of the encoding the body is in (`utf-8`, `windows-1252`, `gbk`, …). */
export function detectEncoding(bytes: Uint8Array, headerCharset: string | undefined, markup: boolean): string {
  const byBom = encodingOfBom(bytes);
  if (byBom !== undefined) return byBom;
  const byHeader = supportedEncoding(headerCharset);
  if (byHeader !== undefined) return byHeader;
  if (markup) {
    const declared = supportedEncoding(declaredCharset(bytes));
    // A page cannot declare itself UTF-16 in ASCII-compatible bytes; the standard reads that as UTF-8.
    if (declared !== undefined) return declared.startsWith('utf-16') ? 'utf-8' : declared;
  }
  return 'utf-8';
}

function encodingOfBom(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/** How far into the document a charset declaration is looked for (the standard says 1024 bytes; pages overshoot). */
const prescanBytes = 4096;
const metaCharset = /<meta\s[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)/i;
const xmlEncoding = /^<\?xml[^>]*?encoding\s*=\s*["']([\w.:-]+)["']/;

function declaredCharset(bytes: Uint8Array): string | undefined {
  // latin1 maps every byte to one character, so ASCII markup reads the same whatever the encoding.
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, prescanBytes)).toString('latin1');
  return metaCharset.exec(head)?.[1] ?? xmlEncoding.exec(head)?.[1];
}

function supportedEncoding(label: string | undefined): string | undefined {
  if (label === undefined || label === '') return undefined;
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return undefined;
  }
}
