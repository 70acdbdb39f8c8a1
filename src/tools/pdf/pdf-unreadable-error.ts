/**
 * A PDF that cannot be opened or whose page cannot be read: damaged, truncated, not a PDF,
 * protected by a password. The message is written for the person who sent the file.
 */
export class PdfUnreadableError extends Error {
  override readonly name = 'PdfUnreadableError';

  constructor(reason: string, options?: ErrorOptions) {
    super(`the PDF cannot be read: ${reason}`, options);
  }
}

/** pdf.js's error for these bytes, said in words a user understands. */
export function pdfUnreadable(error: unknown, where?: string): PdfUnreadableError {
  const name = error instanceof Error ? error.name : '';
  const prefix = where === undefined ? '' : `${where}: `;
  let reason: string;
  if (name === 'PasswordException') reason = 'it is protected by a password';
  else if (error instanceof Error && /empty|zero bytes/i.test(error.message)) reason = 'the file is empty';
  else if (name === 'InvalidPDFException') reason = 'the file is damaged, truncated or not a PDF';
  else reason = `the file is damaged (${error instanceof Error ? error.message : String(error)})`;
  return new PdfUnreadableError(prefix + reason, { cause: error });
}
