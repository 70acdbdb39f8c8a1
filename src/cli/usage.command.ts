import { dayMs, isUtcDay, utcDay, dayStartMs } from '../store/usage/usage-day.ts';
import { usageGroupings, type UsageGrouping } from '../core/usage/usage-report.ts';
import { UsageReportRepository } from '../store/usage/usage-report-repository.ts';
import type { CliFlags } from './cli-flags.ts';
import { usageReportCsv, usageReportTable } from './usage-report-format.ts';
import { withDatabase } from './with-database.ts';

export interface UsageFlags extends CliFlags {
  /** Comma-separated groupings: day, key, model, endpoint. */
  readonly by?: string | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly format?: string | undefined;
}

const usageHelp =
  'Usage: model-platform usage report [--by day|key|model|endpoint[,...]] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--format table|csv]\n' +
  '  Sums of calls, tokens, units and spend (micro-units and decimal) by UTC day (default), key, model\n' +
  '  or endpoint, or several of them\n' +
  '  (--by key,model). --from and --to are inclusive UTC days; by default the last 30 days.';

/** Days the report covers by default, today included. */
const defaultDays = 30;

/** `usage report`: the daily rollups of the usage ledger, summed as asked, as a table or CSV. */
export async function runUsage(args: readonly string[], flags: UsageFlags): Promise<number> {
  if (args[0] !== 'report' || args.length > 1) return fail(usageHelp);
  const by = readGroupings(flags.by);
  if (by instanceof Error) return fail(by.message);
  const to = flags.to ?? utcDay(Date.now());
  const from = flags.from ?? utcDay(dayStartMs(to) - (defaultDays - 1) * dayMs);
  for (const [name, value] of [
    ['--from', from],
    ['--to', to],
  ] as const) {
    if (!isUtcDay(value)) return fail(`${name}: '${value}' is not a date written YYYY-MM-DD`);
  }
  if (from > to) return fail(`--from ${from} is after --to ${to}`);
  const format = flags.format ?? 'table';
  if (format !== 'table' && format !== 'csv') return fail(`--format: '${format}' is neither table nor csv`);

  return withDatabase(flags, async (database) => {
    const rows = await new UsageReportRepository(database).report({ from, to, by });
    process.stdout.write(format === 'csv' ? usageReportCsv(rows, by) : usageReportTable(rows, by));
    return 0;
  });
}

function readGroupings(text: string | undefined): UsageGrouping[] | Error {
  if (text === undefined) return ['day'];
  const names = text.split(',').map((name) => name.trim().toLowerCase());
  const unknown = names.filter((name) => !(usageGroupings as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    return new Error(`--by: '${unknown.join(',') || text}' is not one of ${usageGroupings.join(', ')} (or several, comma-separated)`);
  }
  return usageGroupings.filter((grouping) => names.includes(grouping));
}

function fail(message: string): number {
  console.error(message);
  return 2;
}
