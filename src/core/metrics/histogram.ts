import { Histogram as PromHistogram, type MetricType, type Registry } from 'prom-client';
import { SeriesIndex, type Labels } from './series-index.ts';

/** One series: its observations counted by bucket (the last slot: above every bound), their sum and count. */
interface HistogramSeries<Name extends string> {
  readonly labels: Labels<Name>;
  readonly counts: number[];
  sum: number;
  count: number;
}

/** A sample as prom-client's registry writes it (`name_bucket{le="…",…}`, `name_sum`, `name_count`). */
interface Sample {
  readonly metricName: string;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
}

/**
 * Durations and sizes: cumulative `_bucket{le}` counts, `_sum` and `_count`, as Prometheus'
 * histogram_quantile reads them. Observations are counted here, by series and bucket (an
 * observation of a series seen before makes nothing; prom-client's own observe makes a key
 * string, a closure and an object every time, and two histograms are observed on every call);
 * prom-client writes them out at each scrape, in the samples its own histogram would list.
 */
export class Histogram<Name extends string = never> {
  readonly #name: string;
  readonly #bounds: readonly number[];
  readonly #index: SeriesIndex<Name, HistogramSeries<Name>>;
  /** Every series, in the order of their first observation (prom-client's order). */
  readonly #series: HistogramSeries<Name>[] = [];

  /** `bounds`: sorted, distinct and finite. */
  constructor(options: { name: string; help: string; labelNames: readonly Name[]; registers: Registry[] }, bounds: readonly number[]) {
    this.#name = options.name;
    this.#bounds = bounds;
    this.#index = new SeriesIndex(options.name, options.labelNames, (labels) => {
      const series: HistogramSeries<Name> = { labels, counts: new Array<number>(bounds.length + 1).fill(0), sum: 0, count: 0 };
      this.#series.push(series);
      return series;
    });
    new WrittenHistogram<Name>({ ...options, buckets: [...bounds] }, () => this.#samples());
  }

  observe(labels: Labels<Name>, value: number): void {
    // As prom-client refuses them: a NaN would make the sum NaN for good.
    if (!Number.isFinite(value)) throw new TypeError(`${this.#name}: ${value} is not a number to observe`);
    const series = this.#index.find(labels);
    const bounds = this.#bounds;
    // le is inclusive: a value equal to a bound counts in that bound's bucket.
    let bucket = 0;
    while (bucket < bounds.length && value > (bounds[bucket] as number)) bucket += 1;
    series.counts[bucket] = (series.counts[bucket] as number) + 1;
    series.sum += value;
    series.count += 1;
  }

  #samples(): Sample[] {
    const bucketName = `${this.#name}_bucket`;
    const samples: Sample[] = [];
    for (const { labels, counts, sum, count } of this.#series) {
      let cumulative = 0;
      this.#bounds.forEach((bound, bucket) => {
        cumulative += counts[bucket] as number;
        samples.push({ metricName: bucketName, labels: { le: bound, ...labels }, value: cumulative });
      });
      samples.push(
        { metricName: bucketName, labels: { le: '+Inf', ...labels }, value: count },
        { metricName: `${this.#name}_sum`, labels: { ...labels }, value: sum },
        { metricName: `${this.#name}_count`, labels: { ...labels }, value: count },
      );
    }
    return samples;
  }
}

/** A metric's name, help, type and samples, as prom-client's registry reads them. */
type WrittenMetric<Name extends string> = Awaited<ReturnType<PromHistogram<Name>['get']>>;

function noCollect(): void {}

/**
 * The prom-client histogram registered under the metric's name, whose samples are the platform's
 * count (Histogram) rather than its own: the registry writes the text format from them.
 */
class WrittenHistogram<Name extends string> extends PromHistogram<Name> {
  readonly #metric: { readonly name: string; readonly help: string };
  readonly #samples: () => Sample[];

  constructor(configuration: { name: string; help: string; labelNames: readonly Name[]; registers: Registry[]; buckets: number[] }, samples: () => Sample[]) {
    super(configuration);
    this.#metric = { name: configuration.name, help: configuration.help };
    this.#samples = samples;
  }

  override get(): Promise<WrittenMetric<Name>> {
    // The samples' labels include `le`, which the typings' label names leave out; the type is the
    // text the registry writes (prom-client's own histograms say 'histogram'; the typings' enum is numeric).
    const values = this.#samples() as WrittenMetric<Name>['values'];
    return Promise.resolve({ ...this.#metric, type: 'histogram' as unknown as MetricType, values, aggregator: 'sum', collect: noCollect });
  }

  /** What the registry writes (it prefers this to `get`): the same samples. */
  getForPromString(): Promise<WrittenMetric<Name>> {
    return this.get();
  }
}
