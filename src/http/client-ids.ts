import { invalidField, type ApiError } from '../core/errors/api-error.ts';

/**
 * A client's `request_id`: 6-64 characters (docs/wire.md §8) from letters, digits and `. _ : -`,
 * which covers what clients generate (UUIDs, `time.time()` as text, `prefix-<millis>`). It becomes
 * the `x-request-id` header and the log's request_id, so nothing else is let through: CR/LF would
 * split a header, characters outside Latin-1 cannot be sent in one at all.
 */
export const requestIdRule = /^[A-Za-z0-9._:-]{6,64}$/;

/** A client's `user_id`: 6-128 characters (docs/wire.md §8), visible ASCII (no spaces or control characters). */
const userIdRule = /^[\x21-\x7e]{6,128}$/;

const ruleTexts = {
  request_id: 'must be 6 to 64 characters, each a letter, a digit or one of . _ : -',
  user_id: 'must be 6 to 128 characters of visible ASCII (no spaces or control characters)',
} as const;

/**
 * 1214 naming the field when `request_id` or `user_id` is present (not null) and breaks its rule;
 * undefined when both are absent or valid. `fields` is the parsed body or form.
 */
export function clientIdsError(fields: unknown, names: readonly ('request_id' | 'user_id')[] = ['request_id', 'user_id']): ApiError | undefined {
  if (fields === null || typeof fields !== 'object') return undefined;
  for (const name of names) {
    const value: unknown = Object.hasOwn(fields, name) ? (fields as Partial<Record<typeof name, unknown>>)[name] : undefined;
    if (value === undefined || value === null) continue;
    const rule = name === 'request_id' ? requestIdRule : userIdRule;
    if (typeof value !== 'string' || !rule.test(value)) return invalidField(name, ruleTexts[name]);
  }
  return undefined;
}
