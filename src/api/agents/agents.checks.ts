import { ApiError, invalidField, missingField } from '../../core/errors/api-error.ts';
import type { AgentAsyncResultRequest, AgentChatRequest, AgentMessage } from './agents.schema.ts';

/**
 * The agent chat rules JSON Schema cannot state (the per-agent custom_variables are in
 * agent-variables.schema.ts): each content part carries what its type names, translation takes
 * user messages only, and the effects-video agent needs an image to animate.
 */
export function checkAgentChatRequest(body: AgentChatRequest): void {
  body.messages.forEach((message, index) => {
    if (body.agent_id === 'general_translation' && message.role !== 'user') {
      throw invalidField(`messages[${index}].role`, "must be 'user' for general_translation");
    }
    if (Array.isArray(message.content)) {
      message.content.forEach((part, partIndex) => {
        if (part[part.type] === undefined) throw missingField(`messages[${index}].content[${partIndex}].${part.type}`);
      });
    }
  });
  if (body.agent_id === 'vidu_template_agent' && !body.messages.some(carriesImage)) {
    throw invalidField('messages', 'must include a user message with an image (an image_url part or an image URL) for vidu_template_agent');
  }
}

/** An image_url part, or content that is itself an image URL. */
function carriesImage(message: AgentMessage): boolean {
  if (message.role !== 'user') return false;
  if (typeof message.content === 'string') return /^(https?:\/\/|data:image\/)\S+$/i.test(message.content.trim());
  return message.content.some((part) => part.type === 'image_url' && part.image_url !== undefined);
}

/** The id to look up: `async_id`, or `task_id` as the Java SDK sends it. */
export function asyncResultId(body: AgentAsyncResultRequest): string {
  if (body.async_id !== undefined && body.task_id !== undefined && body.async_id !== body.task_id) {
    throw new ApiError('1215', "Parameters 'async_id' and 'task_id' name different results; send one of them.");
  }
  const id = body.async_id ?? body.task_id;
  if (id === undefined) throw missingField('async_id');
  return id;
}
