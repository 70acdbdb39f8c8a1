import { Type, type Static } from '@sinclair/typebox';
import { RequestId, StringEnum, UserId } from '../shared/common.schema.ts';

/**
 * Longest fetch a request may ask for. Well above the 20 s default and what slow pages need, yet
 * inside the read timeout of the official clients (300 s in the Python SDK), so the client does not
 * give up before the server answers.
 */
export const maxReaderTimeoutSeconds = 120;

const timeoutDescription = `Fetch timeout in seconds, greater than 0 and at most ${maxReaderTimeoutSeconds}; default 20.`;

/** POST /paas/v4/reader (field names: docs/wire.md §1.1). */
export const ReaderRequest = Type.Object({
  url: Type.String({ minLength: 1, description: 'Absolute http or https URL of the page to read.' }),
  // The Python SDK types timeout as a string, so "20" arrives as often as 20.
  timeout: Type.Optional(
    Type.Union(
      [
        Type.Number({ exclusiveMinimum: 0, maximum: maxReaderTimeoutSeconds }),
        Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'The same number written as a decimal string.' }),
      ],
      { description: timeoutDescription },
    ),
  ),
  no_cache: Type.Optional(Type.Boolean({ default: false, description: 'Fetch the page even when a cached copy exists.' })),
  return_format: Type.Optional(StringEnum(['markdown', 'text'], { default: 'markdown' })),
  retain_images: Type.Optional(Type.Boolean({ default: true })),
  no_gfm: Type.Optional(Type.Boolean({ default: false, description: 'Disable GitHub Flavored Markdown.' })),
  keep_img_data_url: Type.Optional(Type.Boolean({ default: false, description: 'Keep images given as data URLs.' })),
  with_images_summary: Type.Optional(Type.Boolean({ default: false })),
  with_links_summary: Type.Optional(Type.Boolean({ default: false })),
  request_id: Type.Optional(RequestId),
  user_id: Type.Optional(UserId),
});

export type ReaderRequest = Static<typeof ReaderRequest>;

const FreeFormObject = Type.Object({}, { additionalProperties: true });

const ReaderResult = Type.Object({
  content: Type.String({ description: 'Main content (Markdown or plain text as asked): body text, images and links, URLs absolute.' }),
  description: Type.String({ description: 'The meta description (or og:description, or an excerpt of the content); "" when none.' }),
  title: Type.String(),
  url: Type.String({ description: 'The page URL as requested.' }),
  external: Type.Optional(
    Type.Object(
      {
        stylesheet: Type.Optional(Type.Record(Type.String(), FreeFormObject, { description: 'Stylesheet URL → {type: "text/css", media?}.' })),
      },
      { description: 'External resources.' },
    ),
  ),
  metadata: Type.Optional(
    Type.Object(
      {
        keywords: Type.Optional(Type.String()),
        viewport: Type.Optional(Type.String()),
        description: Type.Optional(Type.String()),
        'format-detection': Type.Optional(Type.String()),
      },
      { additionalProperties: Type.String(), description: 'Every <meta> name or property of the page with its content.' },
    ),
  ),
  images: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Image summary: image URL → alt text.' })),
  links: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Links summary: link URL → link text.' })),
  publishedTime: Type.Optional(Type.String({ description: 'When the page says it was published, ISO 8601.' })),
});

export const ReaderResponse = Type.Object({
  id: Type.String(),
  created: Type.Integer({ description: 'Unix timestamp, seconds.' }),
  request_id: Type.String(),
  model: Type.String({ description: 'Always "web-reader": the engine that read the page.' }),
  reader_result: ReaderResult,
});
