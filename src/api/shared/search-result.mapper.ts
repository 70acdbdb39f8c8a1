import type { SearchResult } from '../../core/web/web-searcher.ts';

/** A search result as the wire carries it (docs/wire.md §1.2). */
export function toWireSearchResult(result: SearchResult) {
  return {
    title: result.title,
    content: result.content,
    link: result.link,
    media: result.media,
    icon: result.icon,
    refer: result.refer,
    publish_date: result.publishDate,
  };
}

export type WireSearchResult = ReturnType<typeof toWireSearchResult>;
