import { Counter as PromCounter, Gauge as PromGauge, Registry } from 'prom-client';
import { Histogram } from './histogram.ts';
import { SeriesIndex, type Labels } from './series-index.ts';

export type { Histogram } from './histogram.ts';
export type { Labels } from './series-index.ts';

export interface MetricOptions<Name extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly Name[];
}

/** Work done just before each scrape (reading a table, sampling the process); it may fail or be slow. */
export type ScrapeCollector = () => void | Promise<void>;

/** The Content-Type a scraper expects for the text format (version 0.0.4). */
export const prometheusContentType = Registry.PROMETHEUS_CONTENT_TYPE;

/** Metric and label names: `[a-zA-Z_:][a-zA-Z0-9_:]*` (labels without the colon). */
const metricNamePattern = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelNamePattern = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * Checked here as well as by prom-client, with a message naming the rule: `__` names are reserved
 * for Prometheus itself and `le` belongs to histogram buckets, on every metric type.
 */
function assertNames(name: string, labelNames: readonly string[]): void {
  if (!metricNamePattern.test(name)) throw new Error(`'${name}' is not a valid Prometheus metric name`);
  for (const label of labelNames) {
    if (!labelNamePattern.test(label) || label.startsWith('__') || label === 'le') throw new Error(`'${label}' is not a valid label name here`);
  }
}

/** One series of a counter and what it has gone up by since prom-client last heard of it. */
interface CounterSeries<Name extends string> {
  readonly labels: Labels<Name>;
  pending: number;
  /** In the list of series to hand over (a new series is, even at 0: it is served from then on). */
  queued: boolean;
}

/**
 * Only goes up (requests, errors, tokens); a restart starts it again at zero, which Prometheus
 * expects. Increments are gathered here by series (SeriesIndex) and handed to prom-client when it
 * is read (a scrape): prom-client makes a key string of the labels at every increment, and these
 * counters go up on every call.
 */
export class Counter<Name extends string = never> {
  readonly #name: string;
  readonly #counter: PromCounter<Name>;
  readonly #series: SeriesIndex<Name, CounterSeries<Name>>;
  /** The series that went up since the last hand-over. */
  readonly #risen: CounterSeries<Name>[] = [];

  constructor(name: string, labelNames: readonly Name[], counter: (handOver: () => void) => PromCounter<Name>) {
    this.#name = name;
    this.#series = new SeriesIndex(name, labelNames, (labels) => ({ labels, pending: 0, queued: false }));
    this.#counter = counter(() => this.#handOver());
  }

  inc(labels: Labels<Name>, amount = 1): void {
    // prom-client lets NaN through; a counter holding NaN would read NaN for ever.
    if (!(amount >= 0)) throw new Error(`${this.#name}: a counter cannot go down (${amount})`);
    const series = this.#series.find(labels);
    if (!series.queued) {
      series.queued = true;
      this.#risen.push(series);
    }
    series.pending += amount;
  }

  #handOver(): void {
    for (const series of this.#risen) {
      this.#counter.inc(series.labels, series.pending);
      series.pending = 0;
      series.queued = false;
    }
    this.#risen.length = 0;
  }
}

/** A value that goes up and down (streams open, tasks waiting, memory). */
export class Gauge<Name extends string = never> {
  readonly #gauge: PromGauge<Name>;
  /** The series replaceAll reported, by their label values: each reads 0 once a snapshot leaves it out. */
  readonly #reported = new Map<string, Labels<Name>>();

  constructor(gauge: PromGauge<Name>) {
    this.#gauge = gauge;
  }

  set(labels: Labels<Name>, value: number): void {
    this.#gauge.set(labels, value);
  }

  add(labels: Labels<Name>, amount: number): void {
    this.#gauge.inc(labels, amount);
  }

  /**
   * Replaces every series with `rows` (a scrape-time snapshot); series reported before but absent
   * now read 0 rather than vanishing, so a graph shows the queue emptying.
   */
  replaceAll(rows: readonly { readonly labels: Labels<Name>; readonly value: number }[]): void {
    for (const labels of this.#reported.values()) this.#gauge.set(labels, 0);
    for (const row of rows) {
      this.#reported.set(Object.values<string>(row.labels).join('\u0000'), row.labels);
      this.#gauge.set(row.labels, row.value);
    }
  }
}

/** How long one collector may hold up a scrape before its series are left as they were. */
const collectorTimeoutMs = 2_000;

/**
 * The metrics of one process on a prom-client Registry of its own (never prom-client's global
 * default one): each platform, and each test, has its own, so nothing leaks between them.
 * prom-client keeps the series and writes the text format; this adds the scrape-time collectors,
 * each under a time limit, and the platform's name rules.
 */
export class MetricRegistry {
  readonly #registry = new Registry();
  readonly #names = new Set<string>();
  readonly #collectors: ScrapeCollector[] = [];

  counter<Name extends string = never>(options: MetricOptions<Name>): Counter<Name> {
    const promOptions = this.#options(options);
    return new Counter(options.name, promOptions.labelNames, (handOver) => new PromCounter<Name>({ ...promOptions, collect: handOver }));
  }

  gauge<Name extends string = never>(options: MetricOptions<Name>): Gauge<Name> {
    return new Gauge(new PromGauge<Name>(this.#options(options)));
  }

  histogram<Name extends string = never>(options: MetricOptions<Name> & { readonly buckets: readonly number[] }): Histogram<Name> {
    const buckets = [...new Set(options.buckets)].filter((bound) => Number.isFinite(bound)).sort((left, right) => left - right);
    if (buckets.length === 0) throw new Error(`${options.name}: a histogram needs at least one finite bucket`);
    return new Histogram<Name>(this.#options(options), buckets);
  }

  /** Runs before every scrape; `onError` hears of a collector that failed or took too long. */
  collect(collector: ScrapeCollector): void {
    this.#collectors.push(collector);
  }

  /** Every metric in the text format, after the collectors had their turn (each under a time limit). */
  async render(onError: (error: unknown) => void = () => undefined): Promise<string> {
    await Promise.all(this.#collectors.map((collector) => withTimeout(collector).catch(onError)));
    return this.#registry.metrics();
  }

  #options<Name extends string>(options: MetricOptions<Name>): { name: string; help: string; labelNames: readonly Name[]; registers: Registry[] } {
    const labelNames = options.labelNames ?? [];
    assertNames(options.name, labelNames);
    if (this.#names.has(options.name)) throw new Error(`metric '${options.name}' is registered twice`);
    this.#names.add(options.name);
    return { name: options.name, help: options.help, labelNames, registers: [this.#registry] };
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
