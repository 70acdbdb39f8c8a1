import { readFileSync } from 'node:fs';
import { writeTinyGguf, type TinyGgufChat } from './tiny-gguf.ts';

/**
 * GLM-4.7's real chat template, verbatim from llama.cpp's `models/templates/GLM-4.7-Flash.jinja`
 * (see test/engines/fixtures/README.md for its origin and licence). An engine that detects its
 * chat format from the template (llama-server's `--jinja`) then parses reasoning and tool calls
 * exactly as it would for the real model.
 */
const glmChatTemplate = readFileSync(new URL('../engines/fixtures/glm-4.7-flash.jinja', import.meta.url), 'utf8');

/** GLM-4.x's special tokens that the template uses, plus its end of text. */
const glmControlTokens = [
  '<|endoftext|>',
  '[gMASK]',
  '<sop>',
  '<|system|>',
  '<|user|>',
  '<|assistant|>',
  '<|observation|>',
  '<think>',
  '</think>',
  '<tool_call>',
  '</tool_call>',
  '<arg_key>',
  '</arg_key>',
  '<arg_value>',
  '</arg_value>',
  '<tool_response>',
  '</tool_response>',
] as const;

/**
 * The GLM chat format for the tiny random-weight model, steered so that llama-server's GLM parser
 * meets what a trained model writes. Byte-fallback tokens are never sampled (their bytes would
 * make invalid UTF-8, which llama-server refuses to parse); nor are the markers only the template
 * writes (`[gMASK]`, role tokens, `<think>`) or that only llama-server's tool-call grammar may put
 * in (`<arg_key>`, `<arg_value>`: the grammar still can, spelled in characters). `</think>` and
 * `<tool_call>` are pushed up a little so that answers reason and call tools; `</arg_value>` more,
 * so that a string argument ends (llama.cpp's grammar leaves GLM's raw string values free up to
 * it); after `</arg_value>` comes `</tool_call>`, then `<|observation|>`, which ends the turn (a
 * call left open runs to max_tokens, and a second call with parallel calls off is a 500).
 */
export const glmTinyChat: TinyGgufChat = {
  template: glmChatTemplate,
  controlTokens: glmControlTokens,
  endOfText: '<|endoftext|>',
  // A GLM turn ends when the model hands the turn back: to the user, or to a tool's observation.
  endOfTurn: '<|user|>',
  endOfMessage: '<|observation|>',
  byteTokenOffset: -25,
  logitOffsets: new Map([
    ['<unk>', -25],
    ['<s>', -25],
    ['</s>', -25],
    ['[gMASK]', -25],
    ['<sop>', -25],
    ['<|system|>', -25],
    ['<|assistant|>', -25],
    ['<think>', -25],
    ['<tool_response>', -25],
    ['</tool_response>', -25],
    ['<arg_key>', -25],
    ['</arg_key>', -25],
    ['<arg_value>', -25],
    ['</arg_value>', 0.5],
    ['</think>', 0.15],
    ['<tool_call>', 0.15],
  ]),
  // A call closes after its last value, and the turn then goes to the tool's observation.
  followers: [
    ['</arg_value>', '</tool_call>'],
    ['</tool_call>', '<|observation|>'],
  ],
};

/**
 * The same format for a model that never ends an answer: no end-of-generation token is ever
 * sampled (nor `</arg_value>`, which leads to one), so an answer runs to max_tokens or the
 * context. For tests of what happens while an engine is still generating (aborts, restarts).
 */
const endlessGlmTinyChat: TinyGgufChat = {
  ...glmTinyChat,
  logitOffsets: new Map([...(glmTinyChat.logitOffsets ?? []), ['</arg_value>', -25], ['<|endoftext|>', -25], ['<|user|>', -25], ['<|observation|>', -25]]),
};

export interface TinyGlmGgufOptions {
  readonly seed?: number;
  readonly contextLength?: number;
  /** A model whose answers never end before max_tokens (endlessGlmTinyChat). */
  readonly endless?: boolean;
  /**
   * Replaces the offset that keeps byte-fallback tokens from being sampled (-25). A mild one
   * (-0.5) gives a model that writes a few characters and then a byte that makes invalid UTF-8,
   * which llama-server fails mid-answer: a real engine error after the stream began.
   */
  readonly byteTokenOffset?: number;
}

/**
 * Writes the tiny GLM-format model (cached under the OS temp dir) and returns its path. The
 * default seed gives weights whose greedy answers loop on neither `</think>` nor `<tool_call>`,
 * while sampled answers close their reasoning and call tools now and then.
 */
export function writeTinyGlmGguf(options: TinyGlmGgufOptions = {}): string {
  const { endless = false, byteTokenOffset, ...weights } = options;
  const chat = endless ? endlessGlmTinyChat : glmTinyChat;
  return writeTinyGguf({ seed: 5, contextLength: 32_768, ...weights, chat: byteTokenOffset === undefined ? chat : { ...chat, byteTokenOffset } });
}
