import type { KeyView } from '../../platform/key-admin.ts';
import { invalidField } from '../../core/errors/api-error.ts';
import { scopeOf } from '../../core/limits/key-policy.ts';
import type { UsageSummaryQuery, UsageSummaryRow } from '../../store/usage-summary-repository.ts';

const dayMs = 86_400_000;

export function toKeyObject(view: KeyView) {
  return {
    id: view.id,
    object: 'api_key' as const,
    name: view.name,
    created_at: Math.floor(view.createdAt / 1000),
    revoked_at: view.revokedAt === null ? null : Math.floor(view.revokedAt / 1000),
    scope: scopeOf(view.policy),
    policy: view.policy ?? null,
    credit_held: view.creditHeld,
  };
}

/** The days of a usage query as a half-open range of Unix ms; `to` is included. */
export function toUsageQuery(query: { key_id?: string; model?: string; from?: string; to?: string }, now: number): UsageSummaryQuery {
  const toDay = query.to === undefined ? now - (now % dayMs) : parseDay('to', query.to);
  const fromDay = query.from === undefined ? toDay - 29 * dayMs : parseDay('from', query.from);
  if (fromDay > toDay) throw invalidField('from', 'must not be after to');
  if (toDay - fromDay > 366 * dayMs) throw invalidField('from', 'the range may span at most 366 days');
  return { from: fromDay, to: toDay + dayMs, keyId: query.key_id, model: query.model };
}

export function toUsageItem(row: UsageSummaryRow) {
  return {
    key_id: row.keyId,
    model: row.model,
    date: new Date(row.day).toISOString().slice(0, 10),
    calls: row.calls,
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    total_tokens: row.promptTokens + row.completionTokens,
  };
}

function parseDay(field: string, text: string): number {
  const time = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(time)) throw invalidField(field, 'must be a date YYYY-MM-DD');
  return time;
}
