import type { Readable } from 'node:stream';
import type { BlobStore } from '../blobs/blob-store.ts';
import { ApiError } from '../errors/api-error.ts';

const extensions: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
  'video/x-matroska': 'mkv',
};

/** The file extension of a media type, for blob keys that download with a sensible name. */
export function extensionOf(contentType: string): string {
  return extensions[contentType.toLowerCase()] ?? 'bin';
}

/** A stored blob's bytes; a missing blob is a server-side failure (it was stored by the platform). */
export async function readBlob(blobs: BlobStore, key: string): Promise<Uint8Array> {
  const found = await blobs.get(key);
  if (found === undefined) throw new ApiError('500', `The stored media '${key}' is missing from the blob store.`);
  return collect(found.stream);
}

async function collect(stream: Readable): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}
