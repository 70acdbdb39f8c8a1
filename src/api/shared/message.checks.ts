import { invalidField, missingField } from '../../core/errors/api-error.ts';
import { checkInputAudio, checkMediaUrl } from './media-url.checks.ts';
import type { ChatMessage } from './message.schema.ts';
import { checkJsonDepth } from './json-depth.checks.ts';
import type { ChatTool } from './tool.schema.ts';

/** Rules on the message list JSON Schema cannot state: not only system or only assistant messages, content present unless an assistant calls tools, and the like. */
export function checkMessages(messages: readonly Pick<ChatMessage, 'role' | 'content' | 'tool_calls'>[]): void {
  if (messages.every((message) => message.role === 'system')) {
    throw invalidField('messages', 'must not consist only of system messages');
  }
  if (messages.every((message) => message.role === 'assistant')) {
    throw invalidField('messages', 'must not consist only of assistant messages');
  }
  messages.forEach((message, index) => {
    const hasCalls = message.tool_calls !== undefined && message.tool_calls.length > 0;
    if (message.content === undefined && !(message.role === 'assistant' && hasCalls)) {
      throw missingField(`messages[${index}].content`);
    }
    if (Array.isArray(message.content)) {
      message.content.forEach((part, partIndex) => {
        const field = part.type;
        const path = `messages[${index}].content[${partIndex}].${field}`;
        if (part[field] === undefined) throw missingField(path);
        if (part.type === 'input_audio') {
          if (part.input_audio !== undefined) checkInputAudio(part.input_audio, path);
        } else if (part.type !== 'text') {
          checkMediaUrl(part[part.type]?.url ?? '', `${path}.url`);
        }
      });
    }
  });
}

/** Each tool carries the settings object its `type` names. */
export function checkTools(tools: readonly ChatTool[]): void {
  tools.forEach((tool, index) => {
    if (tool[tool.type] === undefined) throw missingField(`tools[${index}].${tool.type}`);
  });
  checkToolParameters(tools);
}

/** A function's parameters schema is sent on to the engine as JSON: it must not be nested without end. */
export function checkToolParameters(tools: readonly { readonly function?: { readonly parameters?: object } }[]): void {
  tools.forEach((tool, index) => {
    if (tool.function?.parameters !== undefined) checkJsonDepth(tool.function.parameters, `tools[${index}].function.parameters`);
  });
}
