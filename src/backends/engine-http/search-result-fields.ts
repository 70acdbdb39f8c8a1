import type { SearchQuery } from '../../core/web/web-searcher.ts';

/** Characters of text per result (docs/wire.md §1.2: medium about 400-600, high about 2,500). */
export const contentLengths: Record<SearchQuery['contentSize'], number> = { medium: 500, high: 2500 };

/**
 * Result fields derived from a page's URL and date the same way by every engine that only has
 * those: `media` falls back to the host, `icon` to the site's conventional /favicon.ico.
 */
export function mediaOf(siteName: string, url: string): string {
  if (siteName.trim() !== '') return siteName.trim();
  return webUrl(url)?.hostname ?? '';
}

export function iconOf(pageIcon: string, url: string): string {
  if (pageIcon !== '') return pageIcon;
  const page = webUrl(url);
  return page === undefined ? '' : `${page.origin}/favicon.ico`;
}

/** YYYY-MM-DD (UTC), or "" when there is no date. */
export function publishDateOf(unixMs: number | undefined): string {
  if (unixMs === undefined || !Number.isFinite(unixMs)) return '';
  return new Date(unixMs).toISOString().slice(0, 10);
}

/** A stable reference to a result by its rank, as the platform's results carry (`ref_1` first). */
export function referOf(rank: number): string {
  return `ref_${rank + 1}`;
}

/** Only http(s) pages have a host and an origin (a local file has neither). */
function webUrl(url: string): URL | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : undefined;
  } catch {
    return undefined;
  }
}
