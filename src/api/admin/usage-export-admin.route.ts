import { Type } from '@sinclair/typebox';
import { invalidField } from '../../core/errors/api-error.ts';
import { usageReportCsv } from '../../cli/usage-report-format.ts';
import { rateLimitOnly } from '../../http/admission-hooks.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { dayMs, dayStartMs, isUtcDay, utcDay } from '../../store/usage/usage-day.ts';
import { UsageReportRepository, usageGroupings, type UsageGrouping } from '../../store/usage/usage-report-repository.ts';
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
export function registerUsageExportAdminRoute(app: App, deps: Pick<AppDependencies, 'database'>): void {
  const reports = new UsageReportRepository(deps.database);
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
      const to = request.query.to ?? utcDay(Date.now());
      if (!isUtcDay(to)) throw invalidField('to', 'must be a date YYYY-MM-DD');
      const from = request.query.from ?? utcDay(dayStartMs(to) - (defaultDays - 1) * dayMs);
      if (!isUtcDay(from)) throw invalidField('from', 'must be a date YYYY-MM-DD');
      if (from > to) throw invalidField('from', 'must not be after to');
      const csv = usageReportCsv(await reports.report({ from, to, by }), by);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="usage-${by.join('-')}-${from}-${to}.csv"`)
        .send(csv);
    },
  );
}
