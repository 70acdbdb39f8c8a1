import { invalidField } from '../../core/errors/api-error.ts';
import { quoteClientValue } from '../../core/errors/quote-client-value.ts';
import type { FileStore } from '../../core/files/file-store.ts';

/** One glossary entry: the source term and the translation that must be used for it. */
export interface GlossaryTerm {
  readonly source: string;
  readonly target: string;
}

/** Glossaries beyond this are refused: every term is matched against every text. */
export const maxGlossaryBytes = 2 * 1024 * 1024;
const maxGlossaryTerms = 20_000;

const field = 'custom_variables.glossary';

/** Loads and parses the key's glossary file; another key's file, or none, is an invalid parameter. */
export async function loadGlossary(files: FileStore, ownerKeyId: string, fileId: string): Promise<readonly GlossaryTerm[]> {
  const bytes = await files.read(ownerKeyId, fileId);
  if (bytes === undefined)
    throw invalidField(field, `no uploaded file '${quoteClientValue(fileId)}' exists for this API key (upload the glossary with POST /paas/v4/files)`);
  return parseGlossary(bytes);
}

/**
 * A CSV or TSV file of `source,target` rows (a tab anywhere in the first row means TSV). Fields
 * may be quoted as in RFC 4180; columns after the second are ignored (spreadsheet exports add
 * notes); a first row naming the columns (`source,target`, `原文,译文`, …) is skipped. UTF-8 with or
 * without BOM, and UTF-16 with BOM (Excel's "Unicode text" export), are read.
 */
export function parseGlossary(bytes: Buffer): readonly GlossaryTerm[] {
  if (bytes.length > maxGlossaryBytes) {
    throw invalidField(field, `the glossary file has ${bytes.length} bytes; at most ${maxGlossaryBytes} are accepted`);
  }
  const text = decode(bytes);
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const rows = parseDelimited(text, firstLine.includes('\t') ? '\t' : ',');
  const terms: GlossaryTerm[] = [];
  rows.forEach((cells, index) => {
    const [source = '', target = ''] = cells.map((cell) => cell.trim());
    if (source === '' && target === '') return;
    if (index === 0 && isHeader(source, target)) return;
    if (source === '' || target === '') {
      throw invalidField(
        field,
        `row ${index + 1} of the glossary needs a source term and a target term ('source,target'), got '${cells.join(',').slice(0, 80)}'`,
      );
    }
    terms.push({ source, target });
  });
  if (terms.length === 0) throw invalidField(field, "the glossary file has no 'source,target' rows");
  if (terms.length > maxGlossaryTerms) throw invalidField(field, `the glossary has ${terms.length} terms; at most ${maxGlossaryTerms} are accepted`);
  return terms;
}

/** The terms whose source term occurs in the text; the longest first, each source once. */
export function matchingTerms(terms: readonly GlossaryTerm[], text: string): readonly GlossaryTerm[] {
  const seen = new Set<string>();
  const found = terms.filter((term) => {
    const key = term.source.toLowerCase();
    if (seen.has(key) || !containsTerm(text, term.source)) return false;
    seen.add(key);
    return true;
  });
  return found.sort((first, second) => second.source.length - first.source.length);
}

/** The terms whose required translation does not occur in `output`. */
export function missingTargets(terms: readonly GlossaryTerm[], output: string): readonly GlossaryTerm[] {
  return terms.filter((term) => !containsTerm(output, term.target));
}

/**
 * Whether `term` occurs in `text`, ignoring case. In scripts written with spaces a term must stand
 * as a word ("AI" is not found in "said"); in Chinese, Japanese, Korean, Thai and the like words
 * are not delimited, so any occurrence counts.
 */
export function containsTerm(text: string, term: string): boolean {
  const before = needsBoundary(term.at(0)) ? '(?<![\\p{L}\\p{N}\\p{M}])' : '';
  const after = needsBoundary(term.at(-1)) ? '(?![\\p{L}\\p{N}\\p{M}])' : '';
  return new RegExp(`${before}${escapeRegExp(term)}${after}`, 'iu').test(text);
}

// Script_Extensions, so that marks shared by these scripts (the prolonged sound mark ー) count too.
const unspacedScripts = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}]/u;

function needsBoundary(character: string | undefined): boolean {
  return character !== undefined && /[\p{L}\p{N}]/u.test(character) && !unspacedScripts.test(character);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const sourceHeaders = /^(source|src|source[ _-]?(term|text|language|lang)?|term|original|from|源|源语|源文|原文|术语|原词)$/i;
const targetHeaders = /^(target|tgt|target[ _-]?(term|text|language|lang)?|translation|to|目标|目标语|译文|翻译|译词)$/i;

function isHeader(source: string, target: string): boolean {
  return sourceHeaders.test(source) && targetHeaders.test(target);
}

function decode(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return Buffer.from(bytes.subarray(2)).swap16().toString('utf16le');
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

/** RFC 4180 rows: quoted fields may hold the delimiter, newlines and doubled quotes. */
function parseDelimited(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (quoted) {
      if (character === '"' && text[index + 1] === '"') {
        cell += '"';
        index += 1;
      } else if (character === '"') {
        quoted = false;
      } else {
        cell += character;
      }
    } else if (character === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (character === delimiter) {
      row.push(cell);
      cell = '';
    } else if (character === '\n' || character === '\r') {
      if (character === '\r' && text[index + 1] === '\n') index += 1;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else {
      cell += character;
    }
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}
