import type { SearchResult } from '../../core/web/web-searcher.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { iconOf, mediaOf, publishDateOf, referOf } from '../engine-http/search-result-fields.ts';
import { asArray, asRecord, asString } from '../engine-http/wire-reading.ts';

/** A SearXNG result before it is numbered: what the JSON API gives, leniently read. */
export interface SearxngHit {
  readonly title: string;
  readonly content: string;
  readonly url: string;
  readonly host: string;
  readonly publishedAt: number | undefined;
}

/** The `results` of one answer page; an answer without a `results` array is not a search answer. */
export function readSearxngHits(answer: unknown, modelName: string): SearxngHit[] {
  const results = asRecord(answer)?.['results'];
  if (!Array.isArray(results)) {
    throw new EngineFailure('bad-answer', modelName, `The SearXNG instance for '${modelName}' answered without a results array.`);
  }
  const hits: SearxngHit[] = [];
  for (const item of asArray(results)) {
    const record = asRecord(item);
    const url = asString(record?.['url']);
    if (record === undefined || url === undefined) continue;
    const published = Date.parse(asString(record['publishedDate']) ?? asString(record['pubdate']) ?? '');
    hits.push({
      title: asString(record['title']) ?? '',
      content: asString(record['content']) ?? '',
      url,
      host: hostOf(url) ?? asString(asArray(record['parsed_url'])[1]) ?? '',
      publishedAt: Number.isNaN(published) ? undefined : published,
    });
  }
  return hits;
}

export function toSearchResult(hit: SearxngHit, rank: number, contentLength: number): SearchResult {
  return {
    title: hit.title,
    content: hit.content.length > contentLength ? hit.content.slice(0, contentLength) : hit.content,
    link: hit.url,
    media: mediaOf('', hit.url) || hit.host,
    icon: iconOf('', hit.url),
    refer: referOf(rank),
    publishDate: publishDateOf(hit.publishedAt),
  };
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}
