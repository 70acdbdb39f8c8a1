import type { Static } from '@sinclair/typebox';
import type { StoredFile } from '../../core/files/file-store.ts';
import type { FileObject } from './files.schema.ts';

/** The wire shape of an uploaded file (docs/wire.md §7): `created_at` in Unix seconds. */
export function toFileObject(file: StoredFile): Static<typeof FileObject> {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes,
    created_at: Math.floor(file.createdAt.getTime() / 1000),
    filename: file.filename,
    purpose: file.purpose,
  };
}

/**
 * `attachment` with the name twice: an ASCII fallback (quotes, backslashes and non-ASCII replaced)
 * and the exact name per RFC 6266 / 5987, so any client can save the file under its name.
 */
export function contentDisposition(filename: string, fallback: string): string {
  const name = filename === '' ? fallback : filename;
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
