import type { KeyView } from '../../platform/key-admin.ts';
import { invalidField } from '../../core/errors/api-error.ts';
import { scopeOf } from '../../core/limits/key-policy.ts';
import { microsDecimal } from '../../core/billing/money-amount.ts';
import type { UsageReportQuery, UsageReportRow } from '../../core/usage/usage-report.ts';

const dayMs = 86_400_000;
const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);

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

/** A usage query by day, key, model and endpoint; `to` is included, at most 366 days. */
export function toUsageQuery(query: { key_id?: string; model?: string; from?: string; to?: string }, now: number): UsageReportQuery {
  const toDay = query.to === undefined ? now - (now % dayMs) : parseDay('to', query.to);
  const fromDay = query.from === undefined ? toDay - 29 * dayMs : parseDay('from', query.from);
  if (fromDay > toDay) throw invalidField('from', 'must not be after to');
  if (toDay - fromDay > 366 * dayMs) throw invalidField('from', 'the range may span at most 366 days');
  return { from: isoDay(fromDay), to: isoDay(toDay), by: ['day', 'key', 'model', 'endpoint'], keyId: query.key_id, model: query.model };
}

/** The rows of a usage report and their total, amounts as integer micro-units and as decimals. */
export function toUsageReport(rows: readonly UsageReportRow[], currency: string) {
  const total = { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, cost: 0 };
  for (const row of rows) {
    total.calls += row.calls;
    total.promptTokens += row.promptTokens;
    total.completionTokens += row.completionTokens;
    total.cachedTokens += row.cachedTokens;
    total.cost += row.cost;
  }
  return {
    object: 'list' as const,
    currency,
    data: rows.map((row) => ({ date: row.day ?? '', key_id: row.keyId ?? '', model: row.model ?? '', endpoint: row.endpoint ?? '', ...usageSums(row) })),
    total: usageSums(total),
  };
}

function usageSums(row: { calls: number; promptTokens: number; completionTokens: number; cachedTokens: number; cost: number }) {
  return {
    calls: row.calls,
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    cached_tokens: row.cachedTokens,
    total_tokens: row.promptTokens + row.completionTokens,
    spend_micros: row.cost,
    spend: microsDecimal(row.cost),
  };
}

function parseDay(field: string, text: string): number {
  const time = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(time)) throw invalidField(field, 'must be a date YYYY-MM-DD');
  return time;
}
