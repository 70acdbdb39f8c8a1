import { missingField } from '../../core/errors/api-error.ts';
import type { ReceivedFile } from '../../http/multipart.ts';

/** The upload rule JSON Schema cannot state: the form carries a file part. */
export function checkFileUpload(file: ReceivedFile<unknown> | undefined): void {
  if (file === undefined) throw missingField('file');
}
