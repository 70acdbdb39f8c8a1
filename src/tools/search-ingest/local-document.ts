import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IndexedDocument } from '../../core/web/search-index.ts';
import { publishedAtOf, readHtmlFacts } from './html-text.ts';

/** File types `index add` reads from disk. */
export const documentExtensions: readonly string[] = ['.html', '.htm', '.md', '.markdown', '.txt'];

export function isDocumentFile(path: string): boolean {
  return documentExtensions.includes(extname(path).toLowerCase());
}

/**
 * A local file as an index document. HTML goes through a small extraction of its own (the
 * platform reader reads URLs, not files); Markdown and text are indexed as written, titled by
 * their front matter `title:`, first heading or first line. The document's URL is the page's
 * own http(s) address when the HTML states one (a saved copy of a site links to the site), else
 * the file's `file://` URL.
 */
export async function readLocalDocument(path: string, now: number): Promise<IndexedDocument> {
  const raw = await readFile(path, 'utf8');
  const fileUrl = pathToFileURL(path).href;
  const extension = extname(path).toLowerCase();
  if (extension === '.html' || extension === '.htm') {
    const facts = readHtmlFacts(raw);
    return {
      url: facts.canonicalUrl ?? fileUrl,
      title: facts.title || basename(path),
      content: facts.text,
      description: facts.description,
      siteName: facts.siteName,
      icon: facts.icon,
      publishedAt: facts.publishedAt,
      indexedAt: now,
    };
  }
  const { fields, body } = frontMatter(raw);
  const markdown = extension !== '.txt';
  return {
    url: fileUrl,
    title: fields.get('title') || (markdown ? firstHeading(body) : '') || firstLine(body) || basename(path),
    content: body.trim(),
    description: fields.get('description') ?? '',
    siteName: '',
    icon: '',
    publishedAt: publishedAtOf(fields.get('date') ?? ''),
    indexedAt: now,
  };
}

/** `---` front matter's simple `key: value` lines (title, description, date); the rest is body. */
function frontMatter(text: string): { fields: Map<string, string>; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  const fields = new Map<string, string>();
  if (match === null) return { fields, body: text };
  for (const line of (match[1] ?? '').split(/\r?\n/)) {
    const field = /^([A-Za-z_-]+):\s*(.*)$/.exec(line);
    if (field?.[1] !== undefined) fields.set(field[1].toLowerCase(), (field[2] ?? '').trim().replace(/^(["'])(.*)\1$/, '$2'));
  }
  return { fields, body: text.slice(match[0].length) };
}

function firstHeading(text: string): string {
  return /^#{1,6}\s+(.+?)\s*#*\s*$/m.exec(text)?.[1]?.trim() ?? '';
}

function firstLine(text: string): string {
  const line =
    text
      .split(/\r?\n/)
      .find((candidate) => candidate.trim() !== '')
      ?.trim() ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
