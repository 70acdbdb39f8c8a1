import { readFileSync } from 'node:fs';
import { writeTinyGguf, type TinyGgufChat } from './tiny-gguf.ts';

/**
 * GLM-4.7's real chat template, verbatim from llama.cpp's `models/templates/GLM-4.7-Flash.jinja`
 * (see test/engines/fixtures/README.md for its origin and licence). An engine that detects its
 * chat format from the template (llama-server's `--jinja`) then parses reasoning and tool calls
 * exactly as it would for the real model.
 */
export const glmChatTemplate = readFileSync(new URL('../engines/fixtures/glm-4.7-flash.jinja', import.meta.url), 'utf8');

/** GLM-4.x's special tokens that the template uses, plus its end of text. */
export const glmControlTokens = [
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
 * The GLM chat format for the tiny random-weight model. Byte-fallback tokens are never sampled
 * (their bytes would make invalid UTF-8, which llama-server refuses to parse); the markers that
 * only the template writes (`[gMASK]`, role tokens, `<think>`) are not sampled either; `</think>`
 * and `<tool_call>` are pushed up a little so that answers show reasoning and tool calls.
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
    ['</tool_call>', -25],
    ['<arg_key>', -25],
    ['</arg_key>', -25],
    ['<arg_value>', -25],
    ['</arg_value>', -25],
    ['</think>', 0.15],
    ['<tool_call>', 0.15],
  ]),
};

/**
 * Writes the tiny GLM-format model (cached under the OS temp dir) and returns its path. The
 * default seed gives weights whose greedy answers loop on neither `</think>` nor `<tool_call>`,
 * while sampled answers close their reasoning and call tools now and then.
 */
export function writeTinyGlmGguf(options: { seed?: number; contextLength?: number } = {}): string {
  return writeTinyGguf({ seed: 5, ...options, chat: glmTinyChat });
}
