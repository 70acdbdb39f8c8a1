import type { Static } from '@sinclair/typebox';
import type { BlobStore } from '../../core/blobs/blob-store.ts';
import { layoutMarkdown } from '../../core/ocr/layout-markdown.ts';
import type { LayoutResult } from '../../core/ocr/layout-parser.ts';
import type { LayoutElement, LayoutParsingResponse } from './layout-parsing.schema.ts';

export interface LayoutResponseContext {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly requestId: string;
  /** Put the crops' URLs in the image elements' `content` (return_crop_images). */
  readonly returnCropImages: boolean;
  readonly blobs: BlobStore;
  /** Public origin of this server, for the signed blob URLs. */
  readonly origin: string;
}

/**
 * The wire answer of a parsed document. Image crops and page visualizations are stored in the
 * blob store under the response id and linked by download URL: image crops from the Markdown
 * always (an image link is part of the document), and from the image elements' `content` when
 * the client asked for crop images.
 */
export async function toLayoutResponse(result: LayoutResult, context: LayoutResponseContext): Promise<Static<typeof LayoutParsingResponse>> {
  const { blobs, origin } = context;
  const store = async (key: string, png: Uint8Array) => {
    await blobs.put(key, png, 'image/png');
    return blobs.downloadUrl(key, origin);
  };
  const pages = await Promise.all(
    result.pages.map(async (page, pageIndex) => {
      const elements = await Promise.all(
        page.elements.map(async (element, index) => ({
          element,
          imageUrl:
            element.image === undefined ? element.imageUrl : await store(`layout/${context.id}/page-${pageIndex + 1}-image-${index + 1}.png`, element.image),
        })),
      );
      const visualization =
        page.visualization === undefined ? page.visualizationUrl : await store(`layout/${context.id}/page-${pageIndex + 1}-layout.png`, page.visualization);
      return { page, elements, visualization };
    }),
  );
  const details = pages.map(({ page, elements }) =>
    elements.map(({ element, imageUrl }, index): Static<typeof LayoutElement> => ({
      index,
      label: element.label,
      bbox_2d: [...element.bbox],
      content: element.label === 'image' ? (context.returnCropImages ? (imageUrl ?? '') : '') : element.content,
      height: page.height,
      width: page.width,
    })),
  );
  const markdown =
    result.markdown ??
    pages
      .map(({ elements }) => pageMarkdown(elements))
      .filter((text) => text !== '')
      .join('\n\n');
  const { promptTokens, completionTokens } = result.usage;
  return {
    id: context.id,
    created: context.created,
    model: context.model,
    md_results: markdown,
    layout_details: details,
    layout_visualization: pages.flatMap(({ visualization }) => (visualization === undefined ? [] : [visualization])),
    data_info: { num_pages: result.pages.length, pages: result.pages.map((page) => ({ width: page.width, height: page.height })) },
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      prompt_tokens_details: { cached_tokens: 0 },
      total_tokens: promptTokens + completionTokens,
    },
    request_id: context.requestId,
  };
}

function pageMarkdown(
  elements: readonly { readonly element: LayoutResult['pages'][number]['elements'][number]; readonly imageUrl: string | undefined }[],
): string {
  return layoutMarkdown(
    elements.map(({ element, imageUrl }) => ({
      label: element.label,
      content: element.content,
      ...(element.headingLevel === undefined ? {} : { headingLevel: element.headingLevel }),
      ...(imageUrl === undefined ? {} : { imageUrl }),
    })),
  );
}
