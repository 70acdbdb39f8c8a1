import { open } from 'node:fs/promises';
import { basename, extname, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IndexedDocument } from '../../core/web/search-index.ts';
import { extractHtmlArticle } from '../reader/html-article.ts';
import { publishedAtOf, readHtmlFacts } from './html-text.ts';

/** File types `index add` reads from disk. */
const documentExtensions: readonly string[] = ['.html', '.htm', '.md', '.markdown', '.txt'];

/** Most bytes of one file: a document larger than this is an export or a dump, not a page to index. */
const maxDocumentBytes = 16 * 1024 * 1024;

export function isDocumentFile(path: string): boolean {
  return documentExtensions.includes(extname(path).toLowerCase());
}

/** Where a local file is found, and the folder its public URL is relative to. */
export interface LocalFile {
  readonly path: string;
  /** The folder named on the command line, or the file's own folder when the file itself was named. */
  readonly root: string;
}

/**
 * The URL a file under `root` has when `root` is served at `baseUrl` (an http(s) URL): the path
 * below `root`, each segment percent-encoded, after the base URL. `<root>/a/b c.html` with base
 * `https://docs.example.com/site` is `https://docs.example.com/site/a/b%20c.html`.
 */
function publicUrlOf(file: LocalFile, baseUrl: string): string {
  const segments = relative(file.root, file.path).split(sep).map(encodeURIComponent);
  return `${baseUrl.replace(/\/+$/, '')}/${segments.join('/')}`;
}

/**
 * A local file as an index document. HTML goes through the reader's own extraction (Readability:
 * the article, not the site's navigation and footers); Markdown and text are indexed as written,
 * titled by their front matter `title:`, first heading or first line. The document's URL is, in
 * order: the file's public URL when `baseUrl` maps its folder (`index add --base-url`); the
 * page's own http(s) address when the HTML states one (a saved copy of a site links to the site);
 * else the file's `file://` URL.
 */
export async function readLocalDocument(file: LocalFile, baseUrl: string | undefined, now: number): Promise<IndexedDocument> {
  const raw = await readCapped(file.path);
  const publicUrl = baseUrl === undefined ? undefined : publicUrlOf(file, baseUrl);
  const fileUrl = pathToFileURL(file.path).href;
  const extension = extname(file.path).toLowerCase();
  if (extension === '.html' || extension === '.htm') {
    const facts = readHtmlFacts(raw, publicUrl);
    const url = publicUrl ?? facts.canonicalUrl ?? fileUrl;
    const article = extractHtmlArticle(raw, url);
    return {
      url,
      title: facts.title || article?.title || basename(file.path),
      content: article?.text ?? '',
      description: facts.description || (article?.description ?? ''),
      siteName: facts.siteName,
      icon: facts.icon,
      publishedAt: facts.publishedAt ?? publishedAtOf(article?.publishedTime ?? ''),
      indexedAt: now,
    };
  }
  const { fields, body } = frontMatter(raw);
  const markdown = extension !== '.txt';
  return {
    url: publicUrl ?? fileUrl,
    title: fields.get('title') || (markdown ? firstHeading(body) : '') || firstLine(body) || basename(file.path),
    content: body.trim(),
    description: fields.get('description') ?? '',
    siteName: '',
    icon: '',
    publishedAt: publishedAtOf(fields.get('date') ?? ''),
    indexedAt: now,
  };
}

/** The file as UTF-8, refused past maxDocumentBytes before anything is read into memory. */
async function readCapped(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size > maxDocumentBytes) throw new Error(`the file holds ${size} bytes; index add reads files of at most ${maxDocumentBytes} bytes (16 MB)`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
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
