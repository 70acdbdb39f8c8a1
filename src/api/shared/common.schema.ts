import { Type } from '@sinclair/typebox';
import { contentFilterRoles } from '../../core/errors/content-filter.ts';

/** Fields every request may carry (docs/wire.md §8.7). */
export const RequestId = Type.String({
  minLength: 6,
  maxLength: 64,
  description: 'Client-supplied unique id, 6-64 characters, each a letter, a digit or one of . _ : -; generated when omitted and echoed in responses.',
});

export const UserId = Type.String({
  minLength: 6,
  maxLength: 128,
  description: 'End-user id, 6-128 characters of visible ASCII (no spaces or control characters), without sensitive information.',
});

/** A model name; whether the name is known is checked against the platform list and the catalog (1211). */
export function ModelName(description: string) {
  return Type.String({ minLength: 1, description });
}

/** Content-safety verdicts (docs/wire.md §2.1, §3.2): which side was flagged, and how severely. */
export function ContentFilterVerdicts(description: string) {
  return Type.Array(
    Type.Object({
      role: StringEnum(contentFilterRoles, { description: 'assistant: model inference; user: user input; history: earlier context.' }),
      level: Type.Integer({ minimum: 0, maximum: 3, description: '0 most severe, 3 least severe.' }),
    }),
    { description },
  );
}

/** The platform error body (docs/wire.md §2.1). */
export const ErrorBody = Type.Object(
  {
    contentFilter: Type.Optional(
      ContentFilterVerdicts('Code 1301 only: what was flagged; level 1 where the engine gave no severity (every engine but the upstream platform).'),
    ),
    error: Type.Object({
      code: Type.String({ pattern: '^[0-9]+$', description: 'Business error code, a string of digits.' }),
      message: Type.String(),
    }),
  },
  { description: 'Platform error.' },
);

/** Response map for a route: the success body plus the error body for every failure status. */
export function responses<Success>(success: Success) {
  return { 200: success, '4xx': ErrorBody, '5xx': ErrorBody } as const;
}

/** Token usage of chat and OCR. */
export const ChatUsage = Type.Object({
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  prompt_tokens_details: Type.Optional(Type.Object({ cached_tokens: Type.Integer() })),
  total_tokens: Type.Integer(),
});

/** Search result item (web search and chat `web_search`). */
export const SearchResultItem = Type.Object({
  title: Type.String(),
  content: Type.String(),
  link: Type.String(),
  media: Type.String(),
  icon: Type.String(),
  refer: Type.String(),
  publish_date: Type.String(),
});

/** A string enumeration as a JSON-schema `enum` (Ajv reports the allowed values). */
export function StringEnum<const Values extends readonly string[]>(values: Values, options: { description?: string; default?: Values[number] } = {}) {
  return Type.Unsafe<Values[number]>({ type: 'string', enum: [...values], ...options });
}
