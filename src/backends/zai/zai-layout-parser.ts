import { EngineFailure } from '../../core/errors/engine-failure.ts';
import {
  layoutLabels,
  type LayoutElement,
  type LayoutLabel,
  type LayoutPage,
  type LayoutParser,
  type LayoutRequest,
  type LayoutResult,
  type NormalisedBox,
} from '../../core/ocr/layout-parser.ts';
import { postJson, type EngineConnection } from '../engine-http/engine-request.ts';
import { asArray, asRecord, asString, type WireRecord } from '../engine-http/wire-reading.ts';

/**
 * Layout parsing on the upstream platform's own `POST /layout_parsing`: the document goes up as
 * base64 with the platform's own field names; its Markdown, elements and image URLs come back as
 * they are (read leniently).
 */
export class ZaiLayoutParser implements LayoutParser {
  readonly #engine: EngineConnection;
  readonly #url: string;
  readonly #upstreamModel: string;

  constructor(engine: EngineConnection, baseUrl: string, upstreamModel: string) {
    this.#engine = engine;
    this.#url = `${baseUrl}/layout_parsing`;
    this.#upstreamModel = upstreamModel;
  }

  async parse(request: LayoutRequest): Promise<LayoutResult> {
    const body: Record<string, unknown> = {
      model: this.#upstreamModel,
      file: Buffer.from(request.document.bytes).toString('base64'),
      need_layout_visualization: request.needVisualization,
      // Crops are always asked for: image elements link them whether or not the client shows them.
      return_crop_images: true,
    };
    if (request.startPage !== undefined) body['start_page_id'] = request.startPage;
    if (request.endPage !== undefined) body['end_page_id'] = request.endPage;
    const answer = asRecord(await postJson(this.#engine, { url: this.#url, body, signal: request.signal }));
    const details = answer?.['layout_details'];
    if (answer === undefined || !Array.isArray(details)) {
      throw new EngineFailure(
        'bad-answer',
        this.#engine.modelName,
        `The upstream platform answered /layout_parsing for '${this.#engine.modelName}' without layout_details.`,
      );
    }
    const sizes = asArray(asRecord(answer['data_info'])?.['pages']).map((page) => asRecord(page) ?? {});
    const visualizations = asArray(answer['layout_visualization']).map((url) => asString(url));
    const usage = asRecord(answer['usage']);
    const markdown = asString(answer['md_results']);
    return {
      pages: details.map((page, index) => readPage(asArray(page), sizes[index], visualizations[index])),
      ...(markdown === undefined ? {} : { markdown }),
      usage: { promptTokens: count(usage?.['prompt_tokens']), completionTokens: count(usage?.['completion_tokens']) },
    };
  }
}

function readPage(elements: readonly unknown[], size: WireRecord | undefined, visualizationUrl: string | undefined): LayoutPage {
  const records = elements.map((element) => asRecord(element) ?? {});
  const first = records[0];
  return {
    width: count(size?.['width'] ?? first?.['width']),
    height: count(size?.['height'] ?? first?.['height']),
    elements: records.map(readElement),
    ...(visualizationUrl === undefined ? {} : { visualizationUrl }),
  };
}

function readElement(element: WireRecord): LayoutElement {
  const label = labelOf(element['label']);
  const content = asString(element['content']) ?? '';
  const box = asArray(element['bbox_2d']).map((value) => Math.min(1, Math.max(0, typeof value === 'number' ? value : 0)));
  const bbox: NormalisedBox = [box[0] ?? 0, box[1] ?? 0, box[2] ?? 0, box[3] ?? 0];
  if (label === 'image') return { label, bbox, content: '', ...(content === '' ? {} : { imageUrl: content }) };
  return { label, bbox, content };
}

function labelOf(value: unknown): LayoutLabel {
  return layoutLabels.find((label) => label === value) ?? 'text';
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.round(value)) : 0;
}
