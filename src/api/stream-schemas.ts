import { AgentChatChunk } from './agents/agents.schema.ts';
import { AudioTranscriptionStreamEvent } from './audio/audio.schema.ts';
import { ChatCompletionChunk } from './chat/chat.schema.ts';

/**
 * Schemas of `data:` events in text/event-stream answers. OpenAPI cannot attach them to a route's
 * response, so they are listed as named components.
 */
export const streamEventSchemas = {
  ChatCompletionChunk,
  AudioTranscriptionStreamEvent,
  AgentChatChunk,
};
