import type { Selectable } from 'kysely';
import type { IndexedDocument } from '../../core/web/search-index.ts';
import type { SearchDocumentTable } from '../database-schema.ts';
import { segmentCjk } from './cjk-segmentation.ts';

/** A document row as read back (the tokenizers' copies of the text are not needed). */
export type SearchDocumentRow = Omit<Selectable<SearchDocumentTable>, 'segmented_title' | 'segmented_content'>;

/** The columns of a row as read back. */
export const documentColumns = ['id', 'url', 'host', 'title', 'content', 'description', 'site_name', 'icon', 'published_at', 'indexed_at'] as const;

/** The columns of a document (every column but the generated id). */
export function toRow(document: IndexedDocument): Omit<Selectable<SearchDocumentTable>, 'id'> {
  return {
    url: document.url,
    host: domainKey(hostOf(document.url)),
    title: document.title,
    content: document.content,
    segmented_title: segmentCjk(document.title),
    segmented_content: segmentCjk(document.content),
    description: document.description,
    site_name: document.siteName,
    icon: document.icon,
    published_at: document.publishedAt ?? null,
    indexed_at: document.indexedAt,
  };
}

export function fromRow(row: SearchDocumentRow): IndexedDocument {
  return {
    url: row.url,
    title: row.title,
    content: row.content,
    description: row.description,
    siteName: row.site_name,
    icon: row.icon,
    publishedAt: row.published_at === null ? undefined : Number(row.published_at),
    indexedAt: Number(row.indexed_at),
  };
}

/**
 * How hosts are compared by the domain filter: lower case, without a leading `www.` (a filter
 * of www.example.com means the site, and example.com pages are that site too). A filter may be
 * given as a URL; its host is used.
 */
export function domainKey(domainOrUrl: string): string {
  let host = domainOrUrl.trim().toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(host)) host = hostOf(host);
  host = host
    .replace(/[/?#].*$/, '')
    .replace(/:\d+$/, '')
    .replace(/\.$/, '');
  return host.startsWith('www.') ? host.slice(4) : host;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
