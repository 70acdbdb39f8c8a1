import { featureNotAvailable } from '../../core/models/model-resolver.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import {
  coercingValidatorCompiler,
  discardFile,
  multipartContentType,
  multipartRouteOptions,
  readMultipartForm,
} from '../../http/multipart.ts';
import { responses } from '../shared/common.schema.ts';
import { checkFileUpload } from './files.checks.ts';
import {
  FileContentResponse,
  FileDeleted,
  FileIdParams,
  FileList,
  FileListQuery,
  FileObject,
  FileUploadFields,
  FileUploadForm,
  maxUploadBytes,
} from './files.schema.ts';

/** File storage is not part of this build yet: each route validates its input, then says so. */
const storage = 'File storage';

export function registerFileRoutes(app: App, _deps: AppDependencies): void {
  app.post(
    '/files',
    {
      ...multipartRouteOptions,
      schema: {
        operationId: 'uploadFile',
        tags: ['files'],
        summary: 'Uploads an auxiliary file (glossary, terminology list), at most 100 MB.',
        consumes: [multipartContentType],
        body: FileUploadForm,
        response: responses(FileObject),
      },
    },
    async (request) => {
      // The upload is read to its end (under the limit) and dropped, so the answer follows a whole body.
      const form = await readMultipartForm(request, FileUploadFields, {
        fileField: 'file',
        maxFileBytes: maxUploadBytes,
        receiveFile: discardFile,
      });
      checkFileUpload(form.file);
      throw featureNotAvailable(storage);
    },
  );

  app.get(
    '/files',
    {
      validatorCompiler: coercingValidatorCompiler,
      schema: {
        operationId: 'listFiles',
        tags: ['files'],
        summary: 'Lists uploaded files.',
        querystring: FileListQuery,
        response: responses(FileList),
      },
    },
    async () => {
      throw featureNotAvailable(storage);
    },
  );

  app.delete(
    '/files/:id',
    {
      schema: {
        operationId: 'deleteFile',
        tags: ['files'],
        summary: 'Deletes an uploaded file.',
        params: FileIdParams,
        response: responses(FileDeleted),
      },
    },
    async () => {
      throw featureNotAvailable(storage);
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
    },
    async () => {
      throw featureNotAvailable(storage);
    },
  );
}
