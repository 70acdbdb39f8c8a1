import { invalidField } from '../../core/errors/api-error.ts';
import { chatModelRules, fixedThinkingEfforts, isFixedThinkingModel } from '../../core/models/chat-model-rules.ts';
import { checkMessages, checkTools } from '../shared/message.checks.ts';
import type { ChatCompletionRequest } from './chat.schema.ts';

/** The chat rules JSON Schema cannot state: the message list, tools, and per-model limits. */
export function checkChatRequest(body: ChatCompletionRequest): void {
  checkMessages(body.messages);
  if (body.tools !== undefined) checkTools(body.tools);
  const rules = chatModelRules(body.model);
  if (rules === undefined) return; // an operator's own catalog model: the engine decides
  if (body.max_tokens !== undefined && body.max_tokens > rules.maxOutputTokens) {
    throw invalidField('max_tokens', `must be <= ${rules.maxOutputTokens} for ${body.model}`);
  }
  if (body.tool_stream === true && !rules.toolStream) {
    throw invalidField('tool_stream', `is supported only by the glm-5.x, glm-4.7 and glm-4.6 series, not ${body.model}`);
  }
  if (body.response_format !== undefined && rules.vision) {
    throw invalidField('response_format', `is for text models only, not ${body.model}`);
  }
  if (isFixedThinkingModel(body.model)) {
    if (body.thinking?.type === 'disabled') {
      throw invalidField('thinking.type', `${body.model} can only be 'enabled'`);
    }
    if (body.reasoning_effort !== undefined && !(fixedThinkingEfforts as readonly string[]).includes(body.reasoning_effort)) {
      throw invalidField('reasoning_effort', `must be one of ${fixedThinkingEfforts.join(', ')} for ${body.model}`);
    }
  }
}
