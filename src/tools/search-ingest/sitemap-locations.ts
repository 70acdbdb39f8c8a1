import { gunzipSync } from 'node:zlib';

export interface SitemapLocations {
  /** Pages (`<urlset><url><loc>`). */
  readonly pages: readonly string[];
  /** Further sitemaps (`<sitemapindex><sitemap><loc>`). */
  readonly sitemaps: readonly string[];
}

const locPattern = /<loc>\s*(?:<!\[CDATA\[([\s\S]*?)\]\]>|([\s\S]*?))\s*<\/loc>/gi;

/**
 * The `<loc>` URLs of a sitemap or sitemap index (sitemaps.org protocol), gzipped or not. Only
 * `<loc>` elements matter, so a pattern reads them without an XML parser; entities are decoded.
 */
export function sitemapLocations(bytes: Uint8Array): SitemapLocations {
  const xml = textOf(bytes);
  const locations: string[] = [];
  for (const match of xml.matchAll(locPattern)) {
    const location = decodeEntities((match[1] ?? match[2] ?? '').trim());
    if (location !== '') locations.push(location);
  }
  return /<sitemapindex[\s>]/i.test(xml) ? { pages: [], sitemaps: locations } : { pages: locations, sitemaps: [] };
}

/** Whether a path or URL names a sitemap (by its name: sitemap.xml, sitemap_index.xml.gz, pages.xml). */
export function looksLikeSitemap(pathOrUrl: string): boolean {
  return /\.xml(\.gz)?$/i.test(pathOrUrl);
}

function textOf(bytes: Uint8Array): string {
  const gzipped = bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  return Buffer.from(gzipped ? gunzipSync(bytes) : bytes).toString('utf8');
}

function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (entity, name: string) => {
    const lower = name.toLowerCase();
    if (lower === 'amp') return '&';
    if (lower === 'lt') return '<';
    if (lower === 'gt') return '>';
    if (lower === 'quot') return '"';
    if (lower === 'apos') return "'";
    const code = lower.startsWith('#x') ? Number.parseInt(lower.slice(2), 16) : Number.parseInt(lower.slice(1), 10);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}
