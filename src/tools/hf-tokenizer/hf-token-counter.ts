import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { Tokenizer } from '@huggingface/tokenizers';
import type { TokenCounter } from '../../core/chat/chat-model.ts';
import { ConfigError } from '../../core/config/config-error.ts';
import { toTemplateMessages, toTemplateTools } from './chat-template-messages.ts';

/**
 * Counts prompt tokens with a model's own Hugging Face tokenizer: messages and tools rendered by
 * the model's chat template (with the generation prompt, as an engine renders them), then encoded
 * without adding special tokens again.
 */
export class HfTokenCounter implements TokenCounter {
  readonly #tokenizer: Tokenizer;
  readonly #template: Template;
  readonly #specialTokens: Record<string, string>;

  private constructor(tokenizer: Tokenizer, template: Template, specialTokens: Record<string, string>) {
    this.#tokenizer = tokenizer;
    this.#template = template;
    this.#specialTokens = specialTokens;
  }

  /**
   * `tokenizerPath` is a tokenizer.json; the chat template comes from `chatTemplatePath` (a Jinja
   * file) or from the `chat_template` of tokenizer_config.json beside the tokenizer.
   */
  static load(tokenizerPath: string, chatTemplatePath: string | undefined): HfTokenCounter {
    const tokenizerJson = readJson(tokenizerPath);
    const configPath = join(dirname(tokenizerPath), 'tokenizer_config.json');
    const tokenizerConfig = existsSync(configPath) ? readJson(configPath) : {};
    const templateText = chatTemplatePath === undefined ? tokenizerConfig['chat_template'] : readText(chatTemplatePath);
    if (typeof templateText !== 'string') {
      throw new ConfigError(`${tokenizerPath}: no chat template (set chatTemplatePath, or put tokenizer_config.json with chat_template beside it)`);
    }
    const specialTokens = Object.fromEntries(
      ['bos_token', 'eos_token', 'pad_token', 'unk_token'].flatMap((name) => {
        const value = tokenizerConfig[name];
        const text = typeof value === 'string' ? value : (value as { content?: unknown } | null)?.content;
        return typeof text === 'string' ? [[name, text]] : [];
      }),
    );
    return new HfTokenCounter(new Tokenizer(tokenizerJson, tokenizerConfig), new Template(templateText), specialTokens);
  }

  async countPromptTokens(request: Parameters<TokenCounter['countPromptTokens']>[0]): Promise<number> {
    const prompt = this.#template.render({
      ...this.#specialTokens,
      messages: toTemplateMessages(request.messages),
      ...(request.tools.length > 0 ? { tools: toTemplateTools(request.tools) } : {}),
      add_generation_prompt: true,
      // The chat call's switch, as engines pass it to the template (an open or a closed think block).
      ...(request.thinking === undefined ? {} : { enable_thinking: request.thinking.enabled }),
    });
    return this.#tokenizer.encode(prompt, { add_special_tokens: false }).ids.length;
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${path}: cannot read (${(error as Error).message})`);
  }
}

function readJson(path: string): Record<string, unknown> {
  try {
    return JSON.parse(readText(path)) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${path}: not valid JSON (${(error as Error).message})`);
  }
}
