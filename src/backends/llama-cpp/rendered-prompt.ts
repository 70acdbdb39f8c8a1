import type { Token } from 'node-llama-cpp';
import type { ChatMessage, FunctionTool } from '../../core/chat/chat-types.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { toChatFunctions, toChatHistory } from './chat-history.ts';
import type { LoadedModel } from './llama-engine.ts';

export interface RenderedPrompt {
  /** The conversation and tools through the model's chat template, generation prompt included. */
  readonly tokens: Token[];
  /**
   * The template's end-of-turn markers that are plain text. Markers made of special tokens
   * (ChatML's `<|im_end|>`) are end-of-generation tokens that stop the model by themselves.
   */
  readonly turnEndTexts: readonly string[];
  /** The prompt ends inside an open think block (thinking on, e.g. GLM-4.7): the answer starts as reasoning. */
  readonly reasoningOpen: boolean;
}

/**
 * Renders a request with the chat wrapper node-llama-cpp resolved for the model: the GGUF's own
 * `tokenizer.chat_template` (as a Jinja template, or as the built-in wrapper it is equivalent to).
 * Text from messages stays text: a `<|im_start|>` typed by a user is not a special token. The
 * prompt ends with the template's generation prompt for the thinking switch (`enable_thinking`, as
 * inference servers render it; undefined: the template's default) where the template has one.
 */
export function renderPrompt(
  loaded: LoadedModel,
  messages: readonly ChatMessage[],
  tools: readonly FunctionTool[],
  thinking: boolean | undefined,
): RenderedPrompt {
  const functions = toChatFunctions(tools);
  const state = loaded.chatWrapper.generateContextState({
    chatHistory: toChatHistory(messages),
    ...(functions === undefined ? {} : { availableFunctions: functions, documentFunctionParams: true }),
  });
  const turnEndTexts = state.stopGenerationTriggers.flatMap((trigger) =>
    trigger.values.every((value) => typeof value === 'string') && trigger.values.length > 0 ? [trigger.values.join('')] : [],
  );
  const end = loaded.generationPrompt?.apply(state.contextText, thinking) ?? { text: state.contextText, reasoningOpen: false };
  return { tokens: end.text.tokenize(loaded.model.tokenizer), turnEndTexts, reasoningOpen: end.reasoningOpen };
}

/** Checked before anything is generated: the prompt must leave room for at least one new token. */
export function checkPromptFits(prompt: RenderedPrompt, loaded: LoadedModel, modelName: string): void {
  if (prompt.tokens.length >= loaded.contextSize) {
    throw new EngineFailure('context-too-long', modelName, `Prompt exceeds max length: ${prompt.tokens.length} tokens, context size ${loaded.contextSize}.`);
  }
}
