import { LlamaGrammarEvaluationState, type LlamaContextSequence, type LlamaGrammar, type LlamaModel, type Token } from 'node-llama-cpp';
import { StopWordMatcher } from './stop-word-matcher.ts';
import { TokenTextDecoder } from './token-text-decoder.ts';

export interface GenerationSettings {
  readonly model: LlamaModel;
  readonly sequence: LlamaContextSequence;
  /** The rendered prompt, generation prompt included. */
  readonly prompt: readonly Token[];
  /** undefined: until the end of the context. */
  readonly maxTokens: number | undefined;
  /** 0 is greedy. */
  readonly temperature: number;
  readonly topP: number | undefined;
  readonly seed: number | undefined;
  readonly grammar: LlamaGrammar | undefined;
  readonly stopWords: readonly string[];
  /** Special tokens that come out as their text (the think tags); others decode to nothing. */
  readonly visibleSpecialTokens?: ReadonlySet<Token>;
  readonly signal: AbortSignal;
}

/** Why generation ended: the model's end token, a stop word, the token budget, or a full context. */
export type GenerationEnd = 'end-token' | 'stop-word' | 'max-tokens' | 'context-full';

export type GenerationEvent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'end'; readonly end: GenerationEnd; readonly completionTokens: number; readonly cachedTokens: number };

/**
 * Generates on one sequence, token by token, and yields the text as it decodes; the last event
 * says why it ended. The sequence keeps what the previous request left in it, so a prompt that
 * starts the same way (the earlier turns of a conversation) is not evaluated again. The signal is
 * checked after every token, and leaving the loop stops the evaluation (the sequence is free then).
 */
export async function* generateTokens(settings: GenerationSettings): AsyncGenerator<GenerationEvent> {
  const { model, sequence, prompt, signal } = settings;
  const cachedTokens = await reusePrefix(sequence, prompt);
  const decoder = new TokenTextDecoder(model, settings.visibleSpecialTokens);
  const stopWords = new StopWordMatcher(settings.stopWords);
  let completionTokens = 0;
  /** Sends what the decoder and the stop words still hold, then the end (a stop word found in it wins). */
  function* closing(reason: GenerationEnd): Generator<GenerationEvent> {
    const last = stopWords.push(decoder.flush());
    const rest = last.stopped ? last.text : last.text + stopWords.flush();
    if (rest !== '') yield { type: 'text', text: rest };
    yield { type: 'end', end: last.stopped ? 'stop-word' : reason, completionTokens, cachedTokens };
  }
  const evaluation = sequence.evaluate(prompt.slice(cachedTokens), {
    temperature: settings.temperature,
    ...(settings.topP === undefined ? {} : { topP: settings.topP }),
    ...(settings.seed === undefined ? {} : { seed: settings.seed }),
    ...(settings.grammar === undefined ? {} : { grammarEvaluationState: new LlamaGrammarEvaluationState({ model, grammar: settings.grammar }) }),
    yieldEogToken: true,
    // Generation ends when the context is full (checked below): dropping the start of the
    // conversation to make room would answer a prompt the client did not send.
    contextShift: { strategy: refuseContextShift },
  });
  for await (const token of evaluation) {
    signal.throwIfAborted();
    if (model.isEogToken(token)) {
      yield* closing('end-token');
      return;
    }
    completionTokens += 1;
    const { text, stopped } = stopWords.push(decoder.push(token));
    if (text !== '') yield { type: 'text', text };
    if (stopped) {
      yield { type: 'end', end: 'stop-word', completionTokens, cachedTokens };
      return;
    }
    // The token just sampled is not in the context yet: the next one needs room for it
    // (node-llama-cpp keeps one cell of the context free).
    const contextFull = sequence.nextTokenIndex >= sequence.contextSize - 1;
    const ending = completionTokens >= (settings.maxTokens ?? Infinity) ? 'max-tokens' : contextFull ? 'context-full' : undefined;
    if (ending !== undefined) {
      yield* closing(ending);
      return;
    }
  }
  // node-llama-cpp ends an evaluation only when told to; reaching here means it was disposed.
  throw new Error('The llama.cpp evaluation ended unexpectedly (the model was closed).');
}

function refuseContextShift(): never {
  throw new Error('The llama.cpp context is full.');
}

/**
 * Keeps the part of the sequence's context that the prompt starts with and erases the rest; at
 * least the prompt's last token is evaluated again, because its logits give the first new token.
 * Returns how many prompt tokens were reused.
 */
async function reusePrefix(sequence: LlamaContextSequence, prompt: readonly Token[]): Promise<number> {
  try {
    await sequence.adaptStateToTokens([...prompt], false);
    const reused = Math.min(sequence.nextTokenIndex, prompt.length - 1);
    if (sequence.nextTokenIndex > reused) await sequence.eraseContextTokenRanges([{ start: reused, end: sequence.nextTokenIndex }]);
    return reused;
  } catch {
    // A model whose cache cannot be cut (recurrent state) starts over.
    await sequence.clearHistory();
    return 0;
  }
}
