import { Type, type Static } from '@sinclair/typebox';
import { modelSettings } from '../../core/config/config.schema.ts';
import { openAiServerSettings } from '../engine-http/engine-settings.ts';

/** A model entry of `backend: openai-compatible`: any OpenAI-compatible chat server. */
export const OpenAiCompatibleSettingsSchema = Type.Object(
  {
    backend: Type.Literal('openai-compatible'),
    ...openAiServerSettings,
    thinkingParam: Type.Optional(
      Type.String({
        minLength: 1,
        description: "Dotted path of the engine's thinking switch (default chat_template_kwargs.enable_thinking; 'none' sends none).",
      }),
    ),
    engine: Type.Optional(
      Type.Union([Type.Literal('llama.cpp'), Type.Literal('vllm'), Type.Literal('sglang')], {
        description:
          "Which server it is, for token counting (llama.cpp: /v1/chat/completions/input_tokens or /apply-template + /tokenize; vllm: chat /tokenize; sglang: tokenizerPath needed). Left out: found from the engine's first /tokenize answer.",
      }),
    ),
    syncAnswers: Type.Optional(
      Type.Union([Type.Literal('streamed'), Type.Literal('whole')], {
        description:
          "How a non-streamed chat call asks the engine: 'streamed' puts the answer together from a stream (llama.cpp's server reliably stops decoding for a client that left only while it streams), 'whole' asks for the whole answer (more answers/s from llama-server, whose streaming costs it CPU, but a departed client's answer may be decoded to its end). Default: streamed for llama.cpp (configured, or learned from its Server header), whole otherwise.",
      }),
    ),
    vision: Type.Optional(Type.Boolean({ description: 'The engine takes image/video/file content parts.' })),
    tokenizerPath: Type.Optional(modelSettings.tokenizerPath),
    chatTemplatePath: Type.Optional(modelSettings.chatTemplatePath),
  },
  { additionalProperties: false },
);

export type OpenAiCompatibleSettings = Static<typeof OpenAiCompatibleSettingsSchema>;
