/** Who was flagged: the model's answer, the caller's input, or earlier turns of the conversation. */
export const contentFilterRoles = ['assistant', 'user', 'history'] as const;

/**
 * A content-safety verdict as the platform reports it (docs/wire.md §2.1,
 * §3.2, §8.6): level 0 most severe, 3 least.
 */
export interface ContentFilterVerdict {
  readonly role: (typeof contentFilterRoles)[number];
  readonly level: number;
}

/**
 * The verdicts for content flagged by an engine that said so without a severity (a chat engine's
 * `content_filter` stop, an image engine's refusal): level 1, the level of the platform's own
 * documented example, rather than claiming the most severe (0) or nothing flagged (3).
 */
export function flaggedWithoutLevel(role: ContentFilterVerdict['role']): readonly ContentFilterVerdict[] {
  return [{ role, level: 1 }];
}
