import { assertLabelName, assertMetricName, escapeHelp, formatValue, sampleLine } from './prometheus-text.ts';

/** One value per label name; every series of a metric names the same labels. */
export type Labels<Name extends string> = Readonly<Record<Name, string>>;

export interface MetricOptions<Name extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly Name[];
}

/** Work done just before each scrape (reading a table, sampling the process); it may fail or be slow. */
export type ScrapeCollector = () => void | Promise<void>;

/** Series of one metric, keyed by their label values. */
abstract class Metric<Name extends string, Series> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly Name[];
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  protected readonly series = new Map<string, { readonly values: readonly string[]; state: Series }>();
  #last: { readonly values: readonly string[]; state: Series } | undefined;

  constructor(options: MetricOptions<Name>) {
    assertMetricName(options.name);
    for (const label of options.labelNames ?? []) assertLabelName(label);
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames ?? [];
  }

  /** A new series' state. */
  protected abstract initialState(): Series;

  /** The series of these labels, made on first use. Every request counts into a few: no array or closure per call. */
  protected entry(labels: Labels<Name>): { readonly values: readonly string[]; state: Series } {
    // The series counted last is usually the one asked for again (one route, one model under load):
    // its label values compared one by one cost less than building and hashing the joined key.
    const last = this.#last;
    if (last !== undefined && this.#sameValues(last.values, labels)) return last;
    const key = this.#seriesKey(labels);
    let found = this.series.get(key);
    if (found === undefined) {
      found = { values: this.labelNames.map((label) => labels[label]), state: this.initialState() };
      this.series.set(key, found);
    }
    this.#last = found;
    return found;
  }

  #sameValues(values: readonly string[], labels: Labels<Name>): boolean {
    const names = this.labelNames;
    for (let index = 0; index < names.length; index += 1) if (values[index] !== labels[names[index] as Name]) return false;
    return true;
  }

  /** One series' state, without creating it. */
  protected find(labels: Labels<Name>): Series | undefined {
    return this.series.get(this.#seriesKey(labels))?.state;
  }

  /** The label values joined by a separator no label value holds, so ('a,b','c') and ('a','b,c') stay apart. */
  #seriesKey(labels: Labels<Name>): string {
    const names = this.labelNames;
    let key = names.length === 0 ? '' : labels[names[0] as Name];
    for (let index = 1; index < names.length; index += 1) key += `\u0000${labels[names[index] as Name]}`;
    return key;
  }

  /** The HELP and TYPE lines, then the samples. */
  render(): string[] {
    return [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`, ...this.samples()];
  }

  protected abstract samples(): string[];
}

/** Only goes up (requests, errors, tokens); a restart starts it again at zero, which Prometheus expects. */
export class Counter<Name extends string = never> extends Metric<Name, number> {
  readonly type = 'counter';

  inc(labels: Labels<Name>, amount = 1): void {
    if (!(amount >= 0)) throw new Error(`${this.name}: a counter cannot go down (${amount})`);
    this.entry(labels).state += amount;
  }

  protected initialState(): number {
    return 0;
  }

  /** The current value of one series (0 when it was never counted). */
  value(labels: Labels<Name>): number {
    return this.find(labels) ?? 0;
  }

  protected samples(): string[] {
    return [...this.series.values()].map((series) => sampleLine(this.name, this.labelNames, series.values, series.state));
  }
}

/** A value that goes up and down (streams open, tasks waiting, memory). */
export class Gauge<Name extends string = never> extends Metric<Name, number> {
  readonly type = 'gauge';

  set(labels: Labels<Name>, value: number): void {
    this.entry(labels).state = value;
  }

  add(labels: Labels<Name>, amount: number): void {
    this.entry(labels).state += amount;
  }

  protected initialState(): number {
    return 0;
  }

  value(labels: Labels<Name>): number {
    return this.find(labels) ?? 0;
  }

  /**
   * Replaces every series with `rows` (a scrape-time snapshot); series seen before but absent now
   * read 0 rather than vanishing, so a graph shows the queue emptying.
   */
  replaceAll(rows: readonly { readonly labels: Labels<Name>; readonly value: number }[]): void {
    for (const series of this.series.values()) series.state = 0;
    for (const row of rows) this.set(row.labels, row.value);
  }

  protected samples(): string[] {
    return [...this.series.values()].map((series) => sampleLine(this.name, this.labelNames, series.values, series.state));
  }
}

interface HistogramSeries {
  /** Observations per bucket (not cumulative; summed when rendered). */
  readonly counts: number[];
  sum: number;
  count: number;
}

/** Durations and sizes: cumulative `_bucket{le}` counts, `_sum` and `_count`, as Prometheus' histogram_quantile reads them. */
export class Histogram<Name extends string = never> extends Metric<Name, HistogramSeries> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];

  constructor(options: MetricOptions<Name> & { readonly buckets: readonly number[] }) {
    super(options);
    const sorted = [...new Set(options.buckets)].filter((bound) => Number.isFinite(bound)).sort((left, right) => left - right);
    if (sorted.length === 0) throw new Error(`${options.name}: a histogram needs at least one finite bucket`);
    this.buckets = sorted;
  }

  observe(labels: Labels<Name>, value: number): void {
    const series = this.entry(labels);
    const buckets = this.buckets;
    let index = 0;
    while (index < buckets.length && !(value <= (buckets[index] as number))) index += 1;
    series.state.counts[index] = (series.state.counts[index] ?? 0) + 1;
    series.state.sum += value;
    series.state.count += 1;
  }

  protected initialState(): HistogramSeries {
    return { counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
  }

  /** How many observations one series holds (0 when none). */
  count(labels: Labels<Name>): number {
    return this.find(labels)?.count ?? 0;
  }

  protected samples(): string[] {
    const lines: string[] = [];
    const bucketLabels = [...this.labelNames, 'le'];
    for (const { values, state } of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((bound, index) => {
        cumulative += state.counts[index] ?? 0;
        lines.push(sampleLine(`${this.name}_bucket`, bucketLabels, [...values, formatValue(bound)], cumulative));
      });
      lines.push(sampleLine(`${this.name}_bucket`, bucketLabels, [...values, '+Inf'], state.count));
      lines.push(sampleLine(`${this.name}_sum`, this.labelNames, values, state.sum));
      lines.push(sampleLine(`${this.name}_count`, this.labelNames, values, state.count));
    }
    return lines;
  }
}

/** How long one collector may hold up a scrape before its series are left as they were. */
const collectorTimeoutMs = 2_000;

/**
 * The metrics of one process, rendered in the Prometheus text format. No global default registry:
 * each platform (and each test) has its own, so nothing leaks between them.
 */
export class MetricRegistry {
  readonly #metrics = new Map<string, Metric<string, unknown>>();
  readonly #collectors: ScrapeCollector[] = [];

  counter<Name extends string = never>(options: MetricOptions<Name>): Counter<Name> {
    return this.#add(new Counter(options));
  }

  gauge<Name extends string = never>(options: MetricOptions<Name>): Gauge<Name> {
    return this.#add(new Gauge(options));
  }

  histogram<Name extends string = never>(options: MetricOptions<Name> & { readonly buckets: readonly number[] }): Histogram<Name> {
    return this.#add(new Histogram(options));
  }

  /** Runs before every scrape; `onError` hears of a collector that failed or took too long. */
  collect(collector: ScrapeCollector): void {
    this.#collectors.push(collector);
  }

  /** Every metric in the text format, after the collectors had their turn (each under a time limit). */
  async render(onError: (error: unknown) => void = () => undefined): Promise<string> {
    await Promise.all(this.#collectors.map((collector) => withTimeout(collector).catch(onError)));
    const lines: string[] = [];
    for (const metric of this.#metrics.values()) lines.push(...metric.render());
    return `${lines.join('\n')}\n`;
  }

  #add<Found extends Metric<string, unknown>>(metric: Found): Found {
    if (this.#metrics.has(metric.name)) throw new Error(`metric '${metric.name}' is registered twice`);
    this.#metrics.set(metric.name, metric);
    return metric;
  }
}

async function withTimeout(collector: ScrapeCollector): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.resolve().then(collector),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`a metrics collector took longer than ${collectorTimeoutMs} ms`)), collectorTimeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
