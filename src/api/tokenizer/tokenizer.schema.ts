import { Type, type Static } from '@sinclair/typebox';
import { ModelName, RequestId, StringEnum, UserId } from '../shared/common.schema.ts';
import { ChatMessage } from '../shared/message.schema.ts';
import { FunctionTool, maxTools } from '../shared/tool.schema.ts';

/** The tokenizer counts prompts, so tool results have no role here. */
const tokenizerRoles = ['user', 'system', 'assistant'] as const;

/** Content is the chat message's (text or multimodal parts), required because it is what gets counted. */
const { content: MessageContent } = Type.Required(Type.Pick(ChatMessage, ['content'])).properties;

const TokenizerMessage = Type.Object({
  role: StringEnum(tokenizerRoles),
  content: MessageContent,
});

/** POST /paas/v4/tokenizer (docs/wire.md §1.8). */
export const TokenizerRequest = Type.Object({
  model: ModelName('Any chat model: the tokenizer counts what a chat call to that model would take (glm-edge-1.5b-chat with no configuration).'),
  messages: Type.Array(TokenizerMessage, {
    minItems: 1,
    description: 'Chat-format messages, multimodal parts included; not only system and not only assistant messages.',
  }),
  tools: Type.Optional(Type.Array(FunctionTool, { maxItems: maxTools, description: 'Function tools counted with the prompt.' })),
  thinking: Type.Optional(
    Type.Object(
      { type: Type.Optional(StringEnum(['enabled', 'disabled'])) },
      {
        description:
          "As on chat completions (default enabled): chat templates render an open or a closed think block, so prompt_tokens equals the chat call's with the same thinking.",
      },
    ),
  ),
  request_id: Type.Optional(RequestId),
  user_id: Type.Optional(UserId),
});

export type TokenizerRequest = Static<typeof TokenizerRequest>;

const TokenizerUsage = Type.Object({
  prompt_tokens: Type.Integer({ description: "The whole prompt, its image and video tokens included, as the chat call's prompt_tokens." }),
  image_tokens: Type.Integer({
    description: "Tokens of the images: the engine's count where it reports one, else by the GLM-V vision rule (one per 28x28 resized pixels, plus markers).",
  }),
  video_tokens: Type.Integer({
    description: "Tokens of the videos: the engine's count where it reports one, else by the GLM-V vision rule (2 frames a second, two frames a patch).",
  }),
  total_tokens: Type.Integer(),
});

export const TokenizerResponse = Type.Object({
  id: Type.String(),
  created: Type.Integer({ description: 'Unix timestamp, seconds.' }),
  request_id: Type.String(),
  usage: TokenizerUsage,
});
