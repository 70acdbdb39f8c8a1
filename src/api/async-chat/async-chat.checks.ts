import { invalidField } from '../../core/errors/api-error.ts';
import { checkChatRequest } from '../chat/chat.checks.ts';
import { noStreamReason, type AsyncChatCompletionRequest } from './async-chat.schema.ts';

/** The sync chat rules, and no streaming: an async answer is read by polling. */
export function checkAsyncChatRequest(body: AsyncChatCompletionRequest): void {
  if (body.stream === true) throw invalidField('stream', noStreamReason);
  if (body.tool_stream === true) throw invalidField('tool_stream', noStreamReason);
  checkChatRequest(body);
}
