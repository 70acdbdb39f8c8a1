import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { isDocumentFile, type LocalFile } from './local-document.ts';
import { looksLikeSitemap, sitemapLocations } from './sitemap-locations.ts';

/** One thing to index: a web page (read by the platform reader) or a local file. */
export type IngestItem = { readonly kind: 'url'; readonly url: string } | ({ readonly kind: 'file' } & LocalFile);

/** A source that could not be expanded (missing path, unreachable sitemap). */
export interface SourceError {
  readonly source: string;
  readonly message: string;
}

/** Fetches a sitemap's bytes (through the SSRF guard, in the CLI). */
export type FetchBytes = (url: string, signal: AbortSignal) => Promise<Uint8Array>;

/** A sitemap of 50,000 URLs is about 10 MB of XML; a local file past this is not one. */
const maxLocalSitemapBytes = 64 * 1024 * 1024;

/** Sitemap indexes nest sitemaps; real sites use one level, this allows three. */
const deepestSitemap = 3;

/**
 * What `index add` arguments stand for, in order and each item once: an http(s) URL is a page,
 * or a sitemap when its path ends in .xml or .xml.gz; a directory is every .html, .htm, .md,
 * .markdown and .txt file under it (hidden entries skipped, sorted), each with the directory as
 * its root; a file is a document rooted in its own folder, or a sitemap when it ends in .xml or .xml.gz.
 */
export async function expandSources(
  sources: readonly string[],
  fetchBytes: FetchBytes,
  signal: AbortSignal,
): Promise<{ items: IngestItem[]; errors: SourceError[] }> {
  const items: IngestItem[] = [];
  const errors: SourceError[] = [];
  const seen = new Set<string>();
  const add = (item: IngestItem) => {
    const key = item.kind === 'url' ? item.url : `file:${item.path}`;
    if (seen.has(key)) return;
    seen.add(key);
    items.push(item);
  };
  for (const source of sources) {
    try {
      if (isWebUrl(source)) {
        if (looksLikeSitemap(new URL(source).pathname)) await addSitemap(await fetchBytes(source, signal), source, 1);
        else add({ kind: 'url', url: source });
        continue;
      }
      const path = resolve(source);
      const info = await stat(path);
      if (info.isDirectory()) for (const file of await documentFilesUnder(path)) add({ kind: 'file', path: file, root: path });
      else if (looksLikeSitemap(path)) {
        if (info.size > maxLocalSitemapBytes) throw new Error(`the sitemap holds ${info.size} bytes; at most ${maxLocalSitemapBytes} are read`);
        await addSitemap(await readFile(path), source, 1);
      } else if (isDocumentFile(path)) add({ kind: 'file', path, root: dirname(path) });
      else throw new Error('not a file type index add reads (.html, .htm, .md, .markdown, .txt, or a .xml sitemap)');
    } catch (error) {
      if (signal.aborted) throw error;
      errors.push({ source, message: messageOf(error) });
    }
  }
  return { items, errors };

  async function addSitemap(bytes: Uint8Array, origin: string, depth: number): Promise<void> {
    const { pages, sitemaps } = sitemapLocations(bytes);
    for (const page of pages) {
      if (isWebUrl(page)) add({ kind: 'url', url: page });
      else errors.push({ source: origin, message: `sitemap entry '${page}' is not an http(s) URL` });
    }
    for (const sitemap of sitemaps) {
      if (depth >= deepestSitemap || !isWebUrl(sitemap)) {
        errors.push({ source: origin, message: `nested sitemap '${sitemap}' skipped (not http(s), or nested deeper than ${deepestSitemap})` });
        continue;
      }
      try {
        await addSitemap(await fetchBytes(sitemap, signal), sitemap, depth + 1);
      } catch (error) {
        if (signal.aborted) throw error;
        errors.push({ source: sitemap, message: messageOf(error) });
      }
    }
  }
}

async function documentFilesUnder(directory: string): Promise<string[]> {
  const files: string[] = [];
  const entries = (await readdir(directory, { withFileTypes: true })).sort((left, right) => left.name.localeCompare(right.name));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await documentFilesUnder(path)));
    else if (entry.isFile() && isDocumentFile(path)) files.push(path);
  }
  return files;
}

function isWebUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return code === 'ENOENT' ? 'no such file or directory' : error.message;
  }
  return String(error);
}
