import { DocumentReaders, defaultMaxDocumentReaders } from '../../tools/knowledge/document-readers.ts';
import type { FastifyRequest } from 'fastify';
import { notFound } from '../../core/errors/api-error.ts';
import { rateLimitOnly } from '../../http/admission-hooks.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { coercingValidatorCompiler, multipartContentType, multipartRouteOptions } from '../../http/multipart.ts';
import { responses } from '../shared/common.schema.ts';
import { contentDisposition, toFileObject } from './files.mapper.ts';
import { FileContentResponse, FileDeleted, FileIdParams, FileList, FileListQuery, FileObject, FileUploadForm } from './files.schema.ts';
import { receiveUpload } from './files.upload.ts';
import { abortOnDisconnect } from '../../http/client-abort.ts';
import { defaultKnowledgeOcrModel, scanTextReader } from '../../core/knowledge/scan-text.ts';
import { addToKnowledgeBase, checkKnowledgeFields } from './knowledge-upload.ts';
import { defaultKnowledgeReadTimeoutMs } from '../../tools/knowledge/knowledge-document-text.ts';

/** Newest first, and a page large enough to hold every file a key may keep. */
const defaultListLimit = 100;

/**
 * Uploaded files (docs/wire.md §7). Each key sees only its own files: another key's file id
 * answers 404 exactly like an id that never existed, so ids reveal nothing.
 */
export function registerFileRoutes(app: App, deps: AppDependencies): void {
  const knowledge = deps.knowledge;
  const scanModel = deps.config.knowledge?.ocrModel ?? defaultKnowledgeOcrModel;
  const readScan = (bytes: Uint8Array, signal: AbortSignal) => scanTextReader(deps.backends.capability(scanModel, 'layout'), scanModel)(bytes, signal);
  const knowledgeUpload = {
    files: deps.files,
    knowledge,
    readScan,
    readTimeoutMs: deps.config.knowledge?.readTimeoutMs ?? defaultKnowledgeReadTimeoutMs,
    readers: new DocumentReaders(deps.config.knowledge?.maxConcurrentReaders ?? defaultMaxDocumentReaders),
  };
  app.post(
    '/files',
    {
      ...multipartRouteOptions,
      schema: {
        operationId: 'uploadFile',
        tags: ['files'],
        summary: 'Uploads an auxiliary file (glossary, terminology list, knowledge base document), at most 100 MB.',
        description:
          'A key keeps at most 100 files; files are deleted 180 days after their upload. A file over 100 MB answers HTTP 435. ' +
          'With purpose=retrieval and a knowledge_id, the file (text, Markdown, HTML or PDF) is cut into passages of about ' +
          'sentence_size characters and added to that knowledge base of the key, for the chat retrieval tool; the answer comes once it is indexed.',
        consumes: [multipartContentType],
        body: FileUploadForm,
        response: responses(FileObject),
      },
      config: { admission: rateLimitOnly },
    },
    async (request, reply) => {
      const upload = await receiveUpload(request, reply, deps.files, ownerOf(request), checkKnowledgeFields);
      if (upload.fields.purpose === 'retrieval') await addToKnowledgeBase(upload, knowledgeUpload, abortOnDisconnect(reply));
      return toFileObject(upload.file);
    },
  );

  app.get(
    '/files',
    {
      validatorCompiler: coercingValidatorCompiler,
      schema: {
        operationId: 'listFiles',
        tags: ['files'],
        summary: 'Lists uploaded files, newest first unless order=asc.',
        querystring: FileListQuery,
        response: responses(FileList),
      },
      config: { admission: rateLimitOnly },
    },
    async (request) => {
      const { purpose, limit, after, order } = request.query;
      const page = await deps.files.list(ownerOf(request), {
        limit: limit ?? defaultListLimit,
        order: order ?? 'desc',
        ...(purpose === undefined ? {} : { purpose }),
        ...(after === undefined ? {} : { after }),
      });
      return { object: 'list' as const, data: page.files.map(toFileObject), has_more: page.hasMore };
    },
  );

  app.delete(
    '/files/:id',
    {
      schema: {
        operationId: 'deleteFile',
        tags: ['files'],
        summary: 'Deletes an uploaded file (its record, its bytes, and its passages in a knowledge base).',
        params: FileIdParams,
        response: responses(FileDeleted),
      },
      config: { admission: rateLimitOnly },
    },
    async (request) => {
      const { id } = request.params;
      if (!(await deps.files.delete(ownerOf(request), id))) throw notFound('File', id);
      return { id, deleted: true as const, object: 'file' as const };
    },
  );

  app.get(
    '/files/:id/content',
    {
      schema: {
        operationId: 'getFileContent',
        tags: ['files'],
        summary: 'Downloads the content of an uploaded file.',
        params: FileIdParams,
        response: responses(FileContentResponse),
      },
      config: { admission: rateLimitOnly },
    },
    async (request, reply) => {
      const { id } = request.params;
      const content = await deps.files.open(ownerOf(request), id);
      if (content === undefined) throw notFound('File', id);
      return (
        reply
          .header('content-type', content.contentType)
          .header('content-length', content.file.bytes)
          .header('content-disposition', contentDisposition(content.file.filename, content.file.id))
          // Uploaded bytes are served as the type their uploader named, never sniffed into something else.
          .header('x-content-type-options', 'nosniff')
          .send(content.stream)
      );
    },
  );
}

/** Every /files route is authenticated, so the key is set by the time a handler runs. */
function ownerOf(request: FastifyRequest): string {
  const key = request.apiKey;
  if (key === undefined) throw new Error('files route reached without an authenticated key');
  return key.id;
}
