import { Template } from '@huggingface/jinja';
import { LlamaText, SpecialTokensText } from 'node-llama-cpp';

/** Stand-ins for message text while the template's own markup around it is read. */
const userMarker = 'QzUserTextQz';
const modelMarker = 'QzModelTextQz';

const thinkOpen = '<think>';
const thinkClose = '</think>';

/** A rendered prompt's end, with what the template put there for the thinking switch asked for. */
export interface PromptEnd {
  readonly text: LlamaText;
  /** The prompt ends inside an open think block: what the model writes first is reasoning. */
  readonly reasoningOpen: boolean;
}

/**
 * The chat template's own generation prompt, for the thinking switch. node-llama-cpp renders a
 * conversation with an empty assistant turn at its end and cuts the render there, so the template
 * renders that turn as a past one: GLM's template then closes the think block
 * (`<|assistant|></think>`) whatever the switch says. Inference servers render with
 * `add_generation_prompt` and `enable_thinking` instead (`<|assistant|><think>` when thinking):
 * this takes both from the template once, for one user message, and puts the generation prompt
 * in place of the empty turn's opening at the end of node-llama-cpp's render. A template whose
 * renders do not line up that way keeps node-llama-cpp's render.
 */
export class TemplateGenerationPrompt {
  readonly #template: Template;
  /** The markup that opens an empty past assistant turn, as node-llama-cpp's render ends. */
  readonly #emptyTurnOpening: string;
  readonly #prompts = new Map<boolean | undefined, string | undefined>();

  private constructor(template: Template, emptyTurnOpening: string) {
    this.#template = template;
    this.#emptyTurnOpening = emptyTurnOpening;
  }

  /** Undefined when the template cannot be read this way (node-llama-cpp's render is kept). */
  static from(templateText: string | undefined): TemplateGenerationPrompt | undefined {
    if (templateText === undefined || templateText === '') return undefined;
    try {
      const template = new Template(templateText);
      const pastTurn = render(template, [
        { role: 'user', content: userMarker },
        { role: 'assistant', content: modelMarker },
      ]);
      const start = pastTurn.indexOf(userMarker);
      const end = pastTurn.indexOf(modelMarker);
      if (start < 0 || end < start) return undefined;
      const opening = pastTurn.slice(start + userMarker.length, end);
      return opening.trim() === '' ? undefined : new TemplateGenerationPrompt(template, opening);
    } catch {
      return undefined;
    }
  }

  /**
   * `contextText` with its final empty assistant turn opened as the template's generation prompt
   * for `thinking` (undefined: the template's default). Unchanged when its end is not that opening.
   */
  apply(contextText: LlamaText, thinking: boolean | undefined): PromptEnd {
    const unchanged: PromptEnd = { text: contextText, reasoningOpen: false };
    const prompt = this.#generationPrompt(thinking);
    if (prompt === undefined) return unchanged;
    const values = [...contextText.values];
    // After tool results node-llama-cpp leaves the continued turn's separator ("\n\n"): the generation prompt ends the prompt instead.
    while (values.length > 0 && typeof values.at(-1) === 'string' && (values.at(-1) as string).trim() === '') values.pop();
    const last = values.at(-1);
    if (!(last instanceof SpecialTokensText) || !last.value.endsWith(this.#emptyTurnOpening)) return unchanged;
    values[values.length - 1] = new SpecialTokensText(last.value.slice(0, last.value.length - this.#emptyTurnOpening.length) + prompt);
    return { text: LlamaText(values), reasoningOpen: prompt.lastIndexOf(thinkOpen) > prompt.lastIndexOf(thinkClose) };
  }

  #generationPrompt(thinking: boolean | undefined): string | undefined {
    if (this.#prompts.has(thinking)) return this.#prompts.get(thinking);
    let prompt: string | undefined;
    try {
      const rendered = render(this.#template, [{ role: 'user', content: userMarker }], {
        add_generation_prompt: true,
        ...(thinking === undefined ? {} : { enable_thinking: thinking }),
      });
      const start = rendered.indexOf(userMarker);
      prompt = start < 0 ? undefined : rendered.slice(start + userMarker.length);
    } catch {
      prompt = undefined;
    }
    // An opening that the generation prompt does not start like is not the same turn: leave the render alone.
    if (prompt !== undefined && !sameTurnStart(prompt, this.#emptyTurnOpening)) prompt = undefined;
    this.#prompts.set(thinking, prompt);
    return prompt;
  }
}

function render(template: Template, messages: readonly { role: string; content: string }[], extra: Record<string, unknown> = {}): string {
  return template.render({ messages, bos_token: '', eos_token: '', add_generation_prompt: false, ...extra });
}

/** Both begin with the same role marker (up to the first think tag or the end). */
function sameTurnStart(generationPrompt: string, emptyTurnOpening: string): boolean {
  const head = (text: string): string => {
    const tag = text.indexOf('<think>') >= 0 ? text.indexOf('<think>') : text.indexOf('</think>');
    return (tag >= 0 ? text.slice(0, tag) : text).trim();
  };
  return head(generationPrompt) === head(emptyTurnOpening);
}
