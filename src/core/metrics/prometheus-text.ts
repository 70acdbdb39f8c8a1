/**
 * Pieces of the Prometheus text exposition format, version 0.0.4: the escaping rules and how a
 * sample line is spelled. Kept apart from the registry so the rules are tested on their own.
 */

/** The Content-Type a scraper expects for this format. */
export const prometheusContentType = 'text/plain; version=0.0.4; charset=utf-8';

/** Metric and label names: `[a-zA-Z_:][a-zA-Z0-9_:]*` (labels without the colon). */
const metricNamePattern = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelNamePattern = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function assertMetricName(name: string): void {
  if (!metricNamePattern.test(name)) throw new Error(`'${name}' is not a valid Prometheus metric name`);
}

export function assertLabelName(name: string): void {
  // `__` names are reserved for Prometheus itself; `le` belongs to histogram buckets.
  if (!labelNamePattern.test(name) || name.startsWith('__') || name === 'le') {
    throw new Error(`'${name}' is not a valid label name here`);
  }
}

/** A label value inside double quotes: backslash, double quote and line feed are escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text: backslash and line feed are escaped (quotes stay as they are). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample value: Go's float spelling for the special values, JavaScript's shortest form otherwise. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** `name{a="1",b="2"} value`, or `name value` without labels. */
export function sampleLine(name: string, labelNames: readonly string[], labelValues: readonly string[], value: number): string {
  if (labelNames.length === 0) return `${name} ${formatValue(value)}`;
  const pairs = labelNames.map((label, index) => `${label}="${escapeLabelValue(labelValues[index] ?? '')}"`);
  return `${name}{${pairs.join(',')}} ${formatValue(value)}`;
}
