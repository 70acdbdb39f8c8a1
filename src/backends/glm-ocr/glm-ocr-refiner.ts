import { EngineFailure } from '../../core/errors/engine-failure.ts';
import type { LayoutLabel } from '../../core/ocr/layout-parser.ts';
import type { LayoutBlock } from '../../tools/layout/analyse-layout.ts';
import type { RefinedBlock } from '../../tools/document/document-layout-parser.ts';
import { postJson, type EngineConnection } from '../engine-http/engine-request.ts';
import { asArray, asRecord, asString } from '../engine-http/wire-reading.ts';

/** GLM-OCR's task prompts: the model is trained to answer each with that kind of content. */
const recognitionPrompts: Record<Exclude<LayoutLabel, 'image'>, string> = {
  text: 'Text Recognition:',
  table: 'Table Recognition:',
  formula: 'Formula Recognition:',
};

/** A recognition of one region is short; this bounds a model that does not stop. */
const maxRegionTokens = 4096;

/**
 * GLM-OCR on an OpenAI-compatible vision server (vLLM, SGLang): each text, table or formula
 * region's crop is sent as an image with the model's recognition prompt for that kind of region,
 * greedy, and its answer replaces the region's content.
 */
export class GlmOcrRefiner {
  readonly #engine: EngineConnection;
  readonly #url: string;
  readonly #upstreamModel: string;

  constructor(engine: EngineConnection, baseUrl: string, upstreamModel: string) {
    this.#engine = engine;
    this.#url = `${baseUrl}/chat/completions`;
    this.#upstreamModel = upstreamModel;
  }

  async refine(block: LayoutBlock, crop: Uint8Array, signal: AbortSignal): Promise<RefinedBlock> {
    const label = block.label === 'image' ? 'text' : block.label;
    const body = {
      model: this.#upstreamModel,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: `data:image/png;base64,${Buffer.from(crop).toString('base64')}` } },
            { type: 'text', text: recognitionPrompts[label] },
          ],
        },
      ],
      temperature: 0,
      max_tokens: maxRegionTokens,
    };
    const answer = asRecord(await postJson(this.#engine, { url: this.#url, body, signal }));
    const message = asRecord(asRecord(asArray(answer?.['choices'])[0])?.['message']);
    const content = asString(message?.['content']);
    if (content === undefined) {
      throw new EngineFailure(
        'bad-answer',
        this.#engine.modelName,
        `The GLM-OCR engine of model '${this.#engine.modelName}' answered without message content.`,
      );
    }
    const usage = asRecord(answer?.['usage']);
    return {
      content: label === 'formula' ? unwrapFormula(content) : content.trim(),
      promptTokens: tokens(usage?.['prompt_tokens']),
      completionTokens: tokens(usage?.['completion_tokens']),
    };
  }
}

/** The formula itself: GLM-OCR may wrap it in $$ … $$ or \[ … \], which the Markdown adds anyway. */
function unwrapFormula(text: string): string {
  const trimmed = text.trim();
  const wrapped = /^\$\$([\s\S]*)\$\$$/.exec(trimmed) ?? /^\\\[([\s\S]*)\\\]$/.exec(trimmed);
  return (wrapped?.[1] ?? trimmed).trim();
}

function tokens(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
