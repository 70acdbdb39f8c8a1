import { checkMessages, checkToolParameters } from '../shared/message.checks.ts';
import type { TokenizerRequest } from './tokenizer.schema.ts';

/** The tokenizer rules JSON Schema cannot state: the make-up of the message list, the tools' parameters. */
export function checkTokenizerRequest(body: TokenizerRequest): void {
  checkMessages(body.messages);
  if (body.tools !== undefined) checkToolParameters(body.tools);
}
