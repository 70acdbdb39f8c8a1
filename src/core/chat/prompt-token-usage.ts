import { countMediaTokens, mediaKindsOf } from '../media/media-token-count.ts';
import type { VisualMediaReader } from '../media/visual-media-reader.ts';
import type { EngineMediaCount, TokenCounter } from './chat-model.ts';

type CountRequest = Omit<Parameters<TokenCounter['countPromptTokens']>[0], 'onMediaCounted'>;

/** A prompt's tokens as the tokenizer endpoint reports them: `prompt` holds `image` and `video`. */
export interface PromptTokenUsage {
  readonly prompt: number;
  readonly image: number;
  readonly video: number;
}

/**
 * The prompt tokens of a chat, images and videos included, as its chat call counts them. Where the
 * engine counts media into its total (llama.cpp's server, the upstream platform), the total is the
 * engine's and so is each kind it reports apart; a kind it does not report apart is counted by the
 * vision model's rule. Where the counter counts text only (tokenizer files, vLLM), the media are
 * counted by that rule and added to the text, their sizes read by `mediaReader`. `caller` (the API
 * key) takes its turn for reading media among the callers waiting.
 */
export async function countPromptUsage(
  counter: TokenCounter,
  request: CountRequest,
  caller: string,
  mediaReader: VisualMediaReader,
): Promise<PromptTokenUsage> {
  let fromEngine: EngineMediaCount | undefined;
  const counted = await counter.countPromptTokens({
    ...request,
    onMediaCounted: (media) => {
      fromEngine = media;
    },
  });
  const present = mediaKindsOf(request.messages);
  if (!present.image && !present.video) return { prompt: counted, image: 0, video: 0 };
  const engine: EngineMediaCount | undefined = fromEngine;
  const missing = { image: present.image && engine?.image === undefined, video: present.video && engine?.video === undefined };
  const estimated =
    missing.image || missing.video ? await countMediaTokens(mediaReader, request.messages, missing, caller, request.signal) : { image: 0, video: 0 };
  const image = engine?.image ?? estimated.image;
  const video = engine?.video ?? estimated.video;
  return { prompt: engine === undefined ? counted + image + video : counted, image, video };
}
