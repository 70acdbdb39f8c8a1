import { Type, type Static } from '@sinclair/typebox';
import type { Readable } from 'node:stream';
import { maxFileBytes } from '../../core/files/file-limits.ts';
import { MultipartFile } from '../../http/multipart.ts';
import { StringEnum } from '../shared/common.schema.ts';

/** Uploaded files: at most 100 MB each (the platform's limit). */
export const maxUploadBytes = maxFileBytes;

/** Every purpose the platforms and SDKs use (docs/wire.md §7). */
const filePurposes = ['user_data', 'agent', 'batch', 'code-interpreter', 'voice-clone-input', 'fine-tune', 'retrieval'] as const;

const FilePurpose = StringEnum(filePurposes, { description: 'What the file is for; translation glossaries use user_data.' });

/** The text fields of POST /paas/v4/files, validated by `readMultipartForm` (values coerced from text). */
export const FileUploadFields = Type.Object({
  purpose: FilePurpose,
  knowledge_id: Type.Optional(
    Type.String({
      description:
        "With purpose=retrieval (required there): the key's knowledge base to add the file to, 1 to 128 of A-Z a-z 0-9 _ . : -; sent by the Python SDK.",
    }),
  ),
  sentence_size: Type.Optional(
    Type.Integer({ description: 'With purpose=retrieval: about how many characters each passage has, 20 to 2000 (default 300); sent by the Python SDK.' }),
  ),
  upload_detail: Type.Optional(Type.Unknown({ description: 'URL upload details of the Python SDK; accepted and ignored.' })),
});

export type FileUploadFields = Static<typeof FileUploadFields>;

/** The whole form, for the OpenAPI document. */
export const FileUploadForm = Type.Object({
  file: MultipartFile('The file, at most 100 MB.'),
  ...FileUploadFields.properties,
});

/** GET /paas/v4/files query; validated with coercion (query values are text), so `limit` is an integer rule. */
export const FileListQuery = Type.Object({
  purpose: Type.Optional(FilePurpose),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Page size, 1 to 100.' })),
  after: Type.Optional(Type.String({ description: 'Id of the last file of the previous page.' })),
  order: Type.Optional(StringEnum(['asc', 'desc'], { description: 'By creation time.' })),
});

export const FileIdParams = Type.Object({
  id: Type.String({ minLength: 1, description: 'File id.' }),
});

export const FileObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('file'),
  bytes: Type.Integer(),
  created_at: Type.Integer({ description: 'Unix timestamp, seconds.' }),
  filename: Type.String(),
  purpose: Type.String(),
  status: Type.Optional(Type.String()),
  status_details: Type.Optional(Type.String()),
});

export const FileList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(FileObject),
  has_more: Type.Boolean(),
});

export const FileDeleted = Type.Object({
  id: Type.String(),
  deleted: Type.Literal(true),
  object: Type.Literal('file'),
});

/** GET /files/{id}/content answers with the raw bytes (the Python SDK asks with Accept: application/binary). */
export const FileContentResponse = {
  description: 'The raw bytes of the file.',
  // Typed as the stream the handler sends; documented as binary.
  content: { 'application/octet-stream': { schema: Type.Unsafe<Readable>({ format: 'binary', type: 'string' }) } },
};
