import { checkMessages } from '../shared/message.checks.ts';
import type { TokenizerRequest } from './tokenizer.schema.ts';

/** The tokenizer rules JSON Schema cannot state: the make-up of the message list. */
export function checkTokenizerRequest(body: TokenizerRequest): void {
  checkMessages(body.messages);
}
