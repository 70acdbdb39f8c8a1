import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './common.schema.ts';

const MediaUrl = Type.Object({
  url: Type.String({ minLength: 1, description: 'http(s) URL, data URL, or bare base64.' }),
});

/** One part of a multimodal message (vision models): text, image, video, file or audio. */
export const ContentPart = Type.Object({
  type: StringEnum(['text', 'image_url', 'video_url', 'file_url', 'input_audio']),
  text: Type.Optional(Type.String()),
  image_url: Type.Optional(MediaUrl),
  video_url: Type.Optional(MediaUrl),
  file_url: Type.Optional(MediaUrl),
  input_audio: Type.Optional(Type.Object({ data: Type.String(), format: Type.String() })),
});

export const ToolCall = Type.Object({
  id: Type.String(),
  type: Type.Literal('function'),
  function: Type.Object({
    name: Type.String(),
    arguments: Type.String({ description: 'Arguments as a JSON string.' }),
  }),
});

const chatRoles = ['system', 'user', 'assistant', 'tool'] as const;

/** A chat message; which fields a role needs is checked by `checkMessages`. */
export const ChatMessage = Type.Object({
  role: StringEnum(chatRoles),
  content: Type.Optional(Type.Union([Type.String(), Type.Array(ContentPart, { minItems: 1 })])),
  reasoning_content: Type.Optional(Type.String({ description: 'Earlier turn reasoning, kept when clear_thinking is false.' })),
  tool_calls: Type.Optional(Type.Array(ToolCall)),
  tool_call_id: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
});

export type ChatMessage = Static<typeof ChatMessage>;
export type ContentPart = Static<typeof ContentPart>;
