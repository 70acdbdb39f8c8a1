import { Type } from '@sinclair/typebox';
import { invalidField } from '../../core/errors/api-error.ts';
import { usageReportCsv } from '../../cli/usage-report-format.ts';
import { rateLimitOnly } from '../../http/admission-hooks.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { usageGroupings, type UsageGrouping } from '../../core/usage/usage-report.ts';
import { responses } from '../shared/common.schema.ts';

const UsageExportQuery = Type.Object({
  by: Type.Optional(
    Type.String({ pattern: '^(day|key|model|endpoint)(,(day|key|model|endpoint)){0,3}$', description: 'Groupings, comma-separated (default day).' }),
  ),
  from: Type.Optional(Type.String({ description: 'First UTC day, YYYY-MM-DD (default: 29 days before to).' })),
  to: Type.Optional(Type.String({ description: 'Last UTC day, included, YYYY-MM-DD (default: today).' })),
});

const CsvResponse = {
  description: 'RFC 4180 CSV with a header line: the groupings, then calls, tokens and units.',
  content: { 'text/csv': { schema: Type.String() } },
};

/** Days the export covers by default, today included: as `usage report`. */
const defaultDays = 30;

/**
 * GET /admin/usage/export: the usage report as CSV, byte for byte what `model-platform usage
 * report --format csv` prints for the same groupings and days (one formatter, one query), so the
 * console's export and the CLI's agree. Admin keys only, like the CLI, which reads every key.
 */
export function registerUsageExportAdminRoute(app: App, deps: Pick<AppDependencies, 'keyAdmin'>): void {
  app.get(
    '/usage/export',
    {
      schema: {
        operationId: 'exportUsage',
        tags: ['admin'],
        summary: 'The usage report as CSV (as `usage report --format csv`), grouped by day, key, model and/or endpoint.',
        querystring: UsageExportQuery,
        response: responses(CsvResponse),
      },
      config: { admission: rateLimitOnly },
    },
    async (request, reply) => {
      const by = usageGroupings.filter((grouping) => (request.query.by ?? 'day').split(',').includes(grouping)) as UsageGrouping[];
      const to = request.query.to === undefined ? utcDay(Date.now()) : calendarDay('to', request.query.to);
      const from =
        request.query.from === undefined ? utcDay(Date.parse(`${to}T00:00:00Z`) - (defaultDays - 1) * dayMs) : calendarDay('from', request.query.from);
      if (from > to) throw invalidField('from', 'must not be after to');
      const csv = usageReportCsv(await deps.keyAdmin.usage({ from, to, by }), by);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="usage-${by.join('-')}-${from}-${to}.csv"`)
        .send(csv);
    },
  );
}

const dayMs = 86_400_000;

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** A real calendar day written YYYY-MM-DD (2026-02-30 is not), else 1214 naming the field. */
function calendarDay(field: string, text: string): string {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  if (!Number.isFinite(ms) || utcDay(ms) !== text) throw invalidField(field, 'must be a date YYYY-MM-DD');
  return text;
}
