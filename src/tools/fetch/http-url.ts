/**
 * A URL the platform fetches (or lets through) only when its text is already a clean absolute
 * http(s) URL. The WHATWG parser is lenient on purpose: it strips leading and trailing spaces and
 * control characters, drops tabs and newlines anywhere, reads `\` as `/`, takes `http:host` and
 * `http:///host` as `http://host`, and keeps `user:password@` apart from the host. Another parser
 * (an engine's, a proxy's) may read the same text differently, so text that the parser would
 * have to repair is refused instead of repaired: what is checked is exactly what was sent.
 */
export type HttpUrlReading = { readonly url: URL; readonly problem?: undefined } | { readonly url?: undefined; readonly problem: string };

/** Spaces, C0 controls, DEL and backslashes: characters the parser removes or rewrites. */
function hasRepairedCharacters(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code <= 0x20 || code === 0x7f || code === 0x5c) return true;
  }
  return false;
}

export function readHttpUrl(text: string): HttpUrlReading {
  if (!URL.canParse(text)) return { problem: 'is not a valid URL' };
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'is not an http or https URL' };
  if (hasRepairedCharacters(text)) return { problem: 'contains spaces, control characters or backslashes' };
  // `http:host`, `http:/host` and `http:///host` all parse as `http://host`: the text must say it so.
  if (!/^https?:\/\/[^/]/i.test(text)) return { problem: "is not an absolute URL of the form 'http(s)://host/...'" };
  const authority = text.slice(url.protocol.length + 2).split(/[/?#]/, 1)[0] ?? '';
  // `http://public@10.0.0.1` reads as a public host to a person; the platform sends no credentials a caller embeds.
  if (authority.includes('@') || url.username !== '' || url.password !== '') return { problem: 'must not contain credentials (user@ or user:password@)' };
  if (url.hostname === '') return { problem: 'has no host' };
  return { url };
}
