import { invalidField, missingField } from '../../core/errors/api-error.ts';
import type { FileStore } from '../../core/files/file-store.ts';
import type { KnowledgeIndex } from '../../core/knowledge/knowledge-index.ts';
import { defaultSentenceSize, maxSentenceSize, minSentenceSize, splitPassages } from '../../core/knowledge/passage-splitter.ts';
import { readKnowledgeText, type KnowledgeReading } from '../../tools/knowledge/knowledge-document-text.ts';
import type { FileUploadFields } from './files.schema.ts';
import type { ReceivedUpload } from './files.upload.ts';

/** What a knowledge id may be: ids are compared exactly, and shown back in listings and logs. */
const knowledgeIdPattern = /^[A-Za-z0-9_.:-]{1,128}$/;

/** The rules of a `purpose=retrieval` upload, checked before the file is kept: a knowledge id, a passage size in range. */
export function checkKnowledgeFields(fields: FileUploadFields): void {
  if (fields.purpose !== 'retrieval') return;
  if (fields.knowledge_id === undefined || fields.knowledge_id === '') throw missingField('knowledge_id');
  if (!knowledgeIdPattern.test(fields.knowledge_id)) {
    throw invalidField('knowledge_id', 'must be 1 to 128 letters, digits, or the characters _ . : -');
  }
  const size = fields.sentence_size;
  if (size !== undefined && (size < minSentenceSize || size > maxSentenceSize)) {
    throw invalidField('sentence_size', `must be between ${minSentenceSize} and ${maxSentenceSize} characters`);
  }
}

/**
 * Adds a stored `purpose=retrieval` upload to its key's knowledge base: its text read (text,
 * Markdown, HTML, PDF; scans through `readScan`), cut into passages of about `sentence_size`
 * characters and indexed, then marked ready (it was stored pending, unlisted). A file that cannot
 * be read or indexed is deleted again, so a refused upload leaves nothing behind; one whose
 * process dies midway stays pending, unlisted, until the sweep removes it. Returns the number of
 * passages.
 */
export async function addToKnowledgeBase(
  upload: ReceivedUpload,
  deps: { readonly files: FileStore; readonly knowledge: KnowledgeIndex } & KnowledgeReading,
  signal: AbortSignal,
): Promise<number> {
  const { file, fields } = upload;
  const knowledgeId = fields.knowledge_id ?? '';
  const sentenceSize = fields.sentence_size ?? defaultSentenceSize;
  try {
    const bytes = await deps.files.read(file.ownerKeyId, file.id);
    if (bytes === undefined) throw new Error(`the uploaded file ${file.id} was not found right after it was stored`);
    const text = await readKnowledgeText({ bytes, filename: file.filename, contentType: upload.contentType, ownerKeyId: file.ownerKeyId }, deps, signal);
    signal.throwIfAborted();
    const passages = splitPassages(text, sentenceSize);
    await deps.knowledge.addFile({ fileId: file.id, ownerKeyId: file.ownerKeyId, knowledgeId, sentenceSize }, passages);
    await deps.files.markReady(file.ownerKeyId, file.id);
    return passages.length;
  } catch (error) {
    await deps.files.delete(file.ownerKeyId, file.id).catch(() => undefined);
    throw error;
  }
}
