/** What a request asks an engine to do; each endpoint needs exactly one capability. */
export type Capability = 'chat' | 'tokenize' | 'image' | 'video' | 'search' | 'read' | 'layout' | 'transcribe';

/** Words used in messages ("no engine serves glm-4.7 for chat completions"). */
export const capabilityLabels: Record<Capability, string> = {
  chat: 'chat completions',
  tokenize: 'the tokenizer',
  image: 'image generation',
  video: 'video generation',
  search: 'web search',
  read: 'the web reader',
  layout: 'layout parsing',
  transcribe: 'audio transcription',
};
