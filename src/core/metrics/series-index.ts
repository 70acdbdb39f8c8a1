/** One value per label name; every series of a metric names the same labels. */
export type Labels<Name extends string> = Readonly<Record<Name, string>>;

/**
 * A metric's series by their label values, found through one Map per label name in the declared
 * order: a series seen before is found without making anything (prom-client makes a key string
 * of the labels at every update, and the platform's counters and histograms are updated on every
 * call). A new series is made by `make`, from a copy of its labels, after a check that they are
 * the declared ones.
 */
export class SeriesIndex<Name extends string, Series> {
  readonly #metric: string;
  readonly #labelNames: readonly Name[];
  readonly #make: (labels: Labels<Name>) => Series;
  /** Nested by label value, one level per label name; the last level holds the series. */
  readonly #root = new Map<string, unknown>();

  constructor(metric: string, labelNames: readonly Name[], make: (labels: Labels<Name>) => Series) {
    this.#metric = metric;
    this.#labelNames = labelNames;
    this.#make = make;
  }

  find(labels: Labels<Name>): Series {
    const names = this.#labelNames;
    let level = this.#root;
    for (let index = 0; index < names.length - 1; index += 1) {
      const value = labels[names[index] as Name];
      let next = level.get(value) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const last = names.length === 0 ? '' : labels[names[names.length - 1] as Name];
    let series = level.get(last) as Series | undefined;
    if (series === undefined) {
      // Checked once per series, as prom-client would at every update.
      for (const name of Object.keys(labels)) {
        if (!(names as readonly string[]).includes(name)) throw new Error(`${this.#metric}: label '${name}' is not one of ${names.join(', ')}`);
      }
      series = this.#make({ ...labels });
      level.set(last, series);
    }
    return series;
  }
}
