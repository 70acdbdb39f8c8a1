import type { FastifyReply, FastifyRequest } from 'fastify';
import { finished, PassThrough, type Readable } from 'node:stream';
import { finished as streamFinished } from 'node:stream/promises';
import { ApiError } from '../../core/errors/api-error.ts';
import type { FileStore, StagedFile, StoredFile } from '../../core/files/file-store.ts';
import { readMultipartForm } from '../../http/multipart.ts';
import { checkFileUpload } from './files.checks.ts';
import { FileUploadFields, maxUploadBytes } from './files.schema.ts';

/** A stored upload and the form's text fields. */
export interface ReceivedUpload {
  readonly file: StoredFile;
  readonly fields: FileUploadFields;
  /** The content type the client gave the file part. */
  readonly contentType: string;
}

/**
 * Reads a POST /files form and stores its file for `ownerKeyId`. The file part streams straight
 * into the store (never whole in memory); the record is written only once the whole form is read
 * and valid (`checkFields` too), since `purpose` may come after the file. Any refusal — the size
 * limit, the file limit, a bad field — leaves no record and no bytes behind.
 */
export async function receiveUpload(
  request: FastifyRequest,
  reply: FastifyReply,
  files: FileStore,
  ownerKeyId: string,
  checkFields: (fields: FileUploadFields) => void,
): Promise<ReceivedUpload> {
  let staged: StagedFile | undefined;
  let refusal: unknown;
  let committed = false;
  let contentType = '';
  try {
    const form = await readMultipartForm(request, reply, FileUploadFields, {
      fileField: 'file',
      maxFileBytes: maxUploadBytes,
      // The platform answers a file over 100 MB with HTTP 435 (docs/wire.md §2.2).
      fileTooLarge: (rule) => new ApiError('435', `Invalid parameter 'file': ${rule}.`),
      receiveFile: async (stream, info) => {
        const content = abortedAtLimit(stream);
        contentType = info.mimetype;
        try {
          staged = await files.stage(ownerKeyId, { filename: info.filename, contentType: info.mimetype, content });
        } catch (error) {
          refusal = error;
        } finally {
          await drain(stream, content);
        }
      },
    });
    checkFileUpload(form.file);
    if (refusal !== undefined) throw refusal;
    checkFields(form.fields);
    if (staged === undefined) throw new Error('the file part was read but nothing was staged');
    // A retrieval file is usable only once indexed: pending (unlisted) until then.
    const stored = await staged.commit(form.fields.purpose, { pending: form.fields.purpose === 'retrieval' });
    committed = true;
    return { file: stored, fields: form.fields, contentType };
  } finally {
    if (staged !== undefined && !committed) await staged.discard().catch(() => undefined);
  }
}

/**
 * The part's bytes, failing when the multipart parser cuts the part at the limit: the parser
 * only ends the stream and flags it `truncated` (its 'limit' event), and a plain end would let the
 * store keep the first 100 MB as if they were the whole file. A broken upload (the client went
 * away, or the body ended before the part did) fails it too, since `pipe` passes on the end of a
 * stream but not its failure. `pipeline` would, but it would also destroy the parser's stream,
 * and the parser waits for that stream's end before it reads the next part.
 */
function abortedAtLimit(stream: Readable): PassThrough {
  const content = new PassThrough();
  // The store learns of a failure from its own read of `content`; the error may come after the
  // store has stopped reading (it failed first, or the body broke as it finished), and an 'error'
  // event nobody listens to would end the process. The caller learns of it from the parser (1210).
  content.on('error', () => undefined);
  stream.once('limit', () => content.destroy(new Error('the file part passed the size limit')));
  finished(stream, (error) => {
    if (error !== undefined && error !== null) content.destroy(error);
  });
  stream.pipe(content);
  return content;
}

/** Reads whatever the store left of the part, so the parser moves on to the next part. */
async function drain(stream: Readable, content: PassThrough): Promise<void> {
  stream.unpipe(content);
  content.destroy();
  stream.resume();
  await streamFinished(stream);
}
