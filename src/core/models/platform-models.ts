import type { Capability } from './capability.ts';

/** The platform's chat models whose body is the text variant. */
export const textChatModels = [
  'glm-5.3',
  'glm-5.2',
  'glm-5.1',
  'glm-5',
  'glm-4.7',
  'glm-4.7-flash',
  'glm-4.7-flashx',
  'glm-4.6',
  'glm-4.5',
  'glm-4.5-air',
  'glm-4.5-x',
  'glm-4.5-airx',
  'glm-4.5-flash',
  'glm-4-32b-0414-128k',
] as const;

/** Chat models of the vision variant (the platform's max_tokens documentation names the 4.6v and 4.5v series). */
export const visionChatModels = ['glm-4.6v', 'glm-4.6v-flash', 'glm-4.6v-flashx', 'glm-4.5v'] as const;

/** The chat model served with no configuration, under its own name: the smallest GLM chat model published as GGUF. */
export const defaultChatModel = 'glm-edge-1.5b-chat';

/**
 * The model names the platform defines for a capability, where it defines any. A request naming
 * one of these is valid even when no engine is configured for it (the answer then says what to
 * configure); a name outside these lists is valid only when the config file's catalog declares it.
 */
export const platformModels = {
  chat: [...textChatModels, ...visionChatModels, defaultChatModel],
  // The tokenizer counts what a chat call would: every chat model is one it counts for.
  tokenize: [...textChatModels, ...visionChatModels, defaultChatModel],
  image: ['glm-image', 'cogview-4-250304'],
  video: ['cogvideox-3'],
  search: ['search-prime', 'search_std', 'search_pro', 'search_pro_sogou', 'search_pro_quark'],
  layout: ['glm-ocr'],
  transcribe: ['glm-asr-2512'],
} satisfies Partial<Record<Capability, readonly string[]>>;

/** The platform's model names for `capability`; none for a capability it names no models for. */
export function platformModelsOf(capability: Capability): readonly string[] {
  const byCapability: Partial<Record<Capability, readonly string[]>> = platformModels;
  return byCapability[capability] ?? [];
}
