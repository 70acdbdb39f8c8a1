import { Type, type Static } from '@sinclair/typebox';
import { layoutLabels } from '../../core/ocr/layout-parser.ts';
import { ChatUsage, ModelName, RequestId, StringEnum, UserId } from '../shared/common.schema.ts';

/** OCR input limits: the platform's documented ones. */
export const maxImageBytes = 10 * 1024 * 1024;
export const maxPdfBytes = 50 * 1024 * 1024;

const PageNumber = (description: string) => Type.Integer({ minimum: 1, description });

/** POST /paas/v4/layout_parsing (field names: docs/wire.md §1.3). */
export const LayoutParsingRequest = Type.Object({
  model: ModelName('glm-ocr (any letter case, for example GLM-OCR), or a model of the config catalog.'),
  file: Type.String({
    minLength: 1,
    description: `The document: an http(s) URL, a data URL, or base64. JPG or PNG up to ${maxImageBytes / 1024 / 1024} MB, PDF up to ${maxPdfBytes / 1024 / 1024} MB and 30 pages.`,
  }),
  return_crop_images: Type.Optional(Type.Boolean({ default: false, description: 'Return screenshot information of image elements.' })),
  need_layout_visualization: Type.Optional(Type.Boolean({ default: false, description: 'Return images of the detected layout.' })),
  start_page_id: Type.Optional(PageNumber('First PDF page to parse, from 1.')),
  end_page_id: Type.Optional(PageNumber('Last PDF page to parse, from 1; not before start_page_id.')),
  request_id: Type.Optional(RequestId),
  user_id: Type.Optional(UserId),
});

export type LayoutParsingRequest = Static<typeof LayoutParsingRequest>;

export const LayoutElement = Type.Object({
  index: Type.Integer(),
  label: StringEnum(layoutLabels),
  bbox_2d: Type.Array(Type.Number({ minimum: 0, maximum: 1 }), {
    minItems: 4,
    maxItems: 4,
    description: 'Normalised [x1, y1, x2, y2].',
  }),
  content: Type.String({ description: 'Text, image URL, or table HTML.' }),
  height: Type.Integer({ description: 'Page height.' }),
  width: Type.Integer({ description: 'Page width.' }),
});

export const LayoutParsingResponse = Type.Object({
  id: Type.String(),
  created: Type.Integer({ description: 'Unix timestamp, seconds.' }),
  model: Type.String(),
  md_results: Type.String({ description: 'The recognised document in Markdown.' }),
  layout_details: Type.Array(Type.Array(LayoutElement), { description: 'One array of elements per page.' }),
  layout_visualization: Type.Array(Type.String({ description: 'URL of a layout image.' })),
  data_info: Type.Object({
    num_pages: Type.Integer(),
    pages: Type.Array(Type.Object({ width: Type.Integer(), height: Type.Integer() })),
  }),
  usage: ChatUsage,
  request_id: Type.String(),
});
