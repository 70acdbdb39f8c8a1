import { microsDecimal } from '../core/billing/money-amount.ts';
import type { UsageGrouping, UsageReportRow } from '../core/usage/usage-report.ts';

interface Column {
  readonly title: string;
  readonly value: (row: UsageReportRow) => string;
  /** Numbers are right-aligned in the table. */
  readonly numeric: boolean;
  /** Unit columns all of whose values are 0 are left out of the table (never out of the CSV). */
  readonly unit: boolean;
}

const groupColumns: Readonly<Record<UsageGrouping, readonly Column[]>> = {
  day: [{ title: 'day', value: (row) => row.day ?? '', numeric: false, unit: false }],
  key: [
    { title: 'key_id', value: (row) => row.keyId ?? '', numeric: false, unit: false },
    { title: 'key_name', value: (row) => row.keyName ?? '', numeric: false, unit: false },
  ],
  model: [{ title: 'model', value: (row) => row.model ?? '', numeric: false, unit: false }],
  endpoint: [{ title: 'endpoint', value: (row) => row.endpoint ?? '', numeric: false, unit: false }],
};

const count = (title: string, read: (row: UsageReportRow) => number, unit: boolean): Column => ({
  title,
  value: (row) => String(read(row)),
  numeric: true,
  unit,
});

const sumColumns: readonly Column[] = [
  count('calls', (row) => row.calls, false),
  count('prompt_tokens', (row) => row.promptTokens, false),
  count('completion_tokens', (row) => row.completionTokens, false),
  count('cached_tokens', (row) => row.cachedTokens, false),
  count('pages', (row) => row.pages, true),
  // Seconds to the millisecond: sums of float seconds carry binary noise beyond that.
  { title: 'audio_seconds', value: (row) => String(Math.round(row.audioSeconds * 1000) / 1000), numeric: true, unit: true },
  count('images', (row) => row.images, true),
  count('videos', (row) => row.videos, true),
  count('searches', (row) => row.searches, true),
  count('urls_read', (row) => row.urlsRead, true),
  count('spend_micros', (row) => row.cost, false),
  { title: 'spend', value: (row) => microsDecimal(row.cost), numeric: true, unit: false },
];

function columnsOf(by: readonly UsageGrouping[]): Column[] {
  return [...by.flatMap((grouping) => groupColumns[grouping]), ...sumColumns];
}

/** RFC 4180 CSV with a header line; every column always present, so scripts can rely on them. */
export function usageReportCsv(rows: readonly UsageReportRow[], by: readonly UsageGrouping[]): string {
  const columns = columnsOf(by);
  const quote = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
  const lines = [columns.map((column) => column.title), ...rows.map((row) => columns.map((column) => quote(column.value(row))))];
  return lines.map((cells) => cells.join(',')).join('\r\n') + '\r\n';
}

/** An aligned table for people: unit columns that are 0 throughout left out, a total line under the rows. */
export function usageReportTable(rows: readonly UsageReportRow[], by: readonly UsageGrouping[]): string {
  if (rows.length === 0) return 'No usage in this period.\n';
  const columns = columnsOf(by).filter((column) => !column.unit || rows.some((row) => column.value(row) !== '0'));
  const total = totalOf(rows);
  const body = rows.map((row) => columns.map((column) => column.value(row)));
  const totalCells = columns.map((column, index) => (column.numeric ? column.value(total) : index === 0 ? 'total' : ''));
  const widths = columns.map((column, index) => Math.max(column.title.length, ...[...body, totalCells].map((cells) => (cells[index] ?? '').length)));
  const render = (cells: readonly string[]) =>
    cells
      .map((cell, index) => (columns[index]?.numeric === true ? cell.padStart(widths[index] ?? 0) : cell.padEnd(widths[index] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [render(columns.map((column) => column.title)), rule, ...body.map(render), rule, render(totalCells)].join('\n') + '\n';
}

function totalOf(rows: readonly UsageReportRow[]): UsageReportRow {
  const sum = (read: (row: UsageReportRow) => number) => rows.reduce((total, row) => total + read(row), 0);
  return {
    calls: sum((row) => row.calls),
    promptTokens: sum((row) => row.promptTokens),
    completionTokens: sum((row) => row.completionTokens),
    cachedTokens: sum((row) => row.cachedTokens),
    pages: sum((row) => row.pages),
    audioSeconds: sum((row) => row.audioSeconds),
    images: sum((row) => row.images),
    videos: sum((row) => row.videos),
    searches: sum((row) => row.searches),
    urlsRead: sum((row) => row.urlsRead),
    cost: sum((row) => row.cost),
  };
}
