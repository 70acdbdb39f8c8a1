import assert from 'node:assert/strict';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Scrape {
  readonly samples: readonly Sample[];
  /** `# TYPE` of each metric family. */
  readonly types: ReadonlyMap<string, string>;
  /** `# HELP` of each metric family, unescaped. */
  readonly helps: ReadonlyMap<string, string>;
}

/**
 * Parses the Prometheus text format 0.0.4 as a scraper does, strictly: HELP then TYPE before a
 * family's samples, label values unescaped, every sample of a declared family, empty lines ignored. Fails the test on
 * anything else, so the parser checks the format as well as reading the numbers.
 */
export function parseScrape(text: string): Scrape {
  assert.ok(text.endsWith('\n'), 'the exposition ends with a line feed');
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const helps = new Map<string, string>();
  for (const line of text.slice(0, -1).split('\n')) {
    // The format allows empty lines (prom-client puts one between families).
    if (line === '') continue;
    const help = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (help !== null) {
      helps.set(
        help[1] as string,
        (help[2] as string).replace(/\\(n|\\)/g, (_match, escaped: string) => (escaped === 'n' ? '\n' : '\\')),
      );
      continue;
    }
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram)$/.exec(line);
    if (type !== null) {
      assert.ok(helps.has(type[1] as string), `HELP comes before TYPE for ${type[1]}`);
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    const sample = parseSample(line);
    const family = familyOf(sample.name, types);
    assert.ok(family !== undefined, `sample of an undeclared family: ${line}`);
    samples.push(sample);
  }
  return { samples, types, helps };
}

function parseSample(line: string): Sample {
  const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
  assert.ok(head !== null, `not a sample line: ${JSON.stringify(line)}`);
  const name = head[1] as string;
  let position = name.length;
  const labels: Record<string, string> = {};
  if (line[position] === '{') {
    position += 1;
    while (line[position] !== '}') {
      const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(position));
      assert.ok(label !== null, `bad label at ${position}: ${JSON.stringify(line)}`);
      position += label[0].length;
      let value = '';
      for (;;) {
        const character = line[position];
        assert.ok(character !== undefined, `unterminated label value: ${JSON.stringify(line)}`);
        position += 1;
        if (character === '"') break;
        if (character === '\\') {
          const escaped = line[position];
          position += 1;
          assert.ok(escaped === '\\' || escaped === '"' || escaped === 'n', `bad escape \\${escaped ?? ''} in ${JSON.stringify(line)}`);
          value += escaped === 'n' ? '\n' : escaped;
        } else {
          value += character;
        }
      }
      labels[label[1] as string] = value;
      if (line[position] === ',') position += 1;
    }
    position += 1;
  }
  assert.equal(line[position], ' ', `one space before the value: ${JSON.stringify(line)}`);
  const text = line.slice(position + 1);
  const value = text === '+Inf' ? Infinity : text === '-Inf' ? -Infinity : Number(text);
  assert.ok(text === 'NaN' || !Number.isNaN(value), `bad value ${text}`);
  return { name, labels, value };
}

function familyOf(sampleName: string, types: ReadonlyMap<string, string>): string | undefined {
  if (types.has(sampleName)) return sampleName;
  const histogram = /^(.*)_(bucket|sum|count)$/.exec(sampleName);
  if (histogram !== null && types.get(histogram[1] as string) === 'histogram') return histogram[1];
  return undefined;
}

/** Samples of `name` whose labels include all of `labels`. */
export function samplesOf(scrape: Scrape, name: string, labels: Readonly<Record<string, string>> = {}): Sample[] {
  return scrape.samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
}

/** The value of the one sample with exactly these labels (undefined when absent). */
export function valueOf(scrape: Scrape, name: string, labels: Readonly<Record<string, string>>): number | undefined {
  const found = samplesOf(scrape, name, labels).filter((sample) => Object.keys(sample.labels).length === Object.keys(labels).length);
  assert.ok(found.length <= 1, `more than one ${name} sample with ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** Checks a histogram series as Prometheus needs it: cumulative buckets that never go down, +Inf last and equal to _count. */
export function assertHistogramSeries(scrape: Scrape, name: string, labels: Readonly<Record<string, string>>): { count: number; sum: number } {
  const buckets = samplesOf(scrape, `${name}_bucket`, labels).filter((sample) => Object.keys(sample.labels).length === Object.keys(labels).length + 1);
  assert.ok(buckets.length >= 2, `${name}${JSON.stringify(labels)} has buckets`);
  const bounds = buckets.map((sample) => (sample.labels['le'] === '+Inf' ? Infinity : Number(sample.labels['le'])));
  for (let index = 1; index < buckets.length; index += 1) {
    assert.ok((bounds[index] as number) > (bounds[index - 1] as number), `bucket bounds rise: ${bounds.join(',')}`);
    assert.ok((buckets[index] as Sample).value >= (buckets[index - 1] as Sample).value, `bucket counts never go down in ${name}`);
  }
  assert.equal(bounds.at(-1), Infinity, 'the last bucket is +Inf');
  const count = valueOf(scrape, `${name}_count`, labels);
  const sum = valueOf(scrape, `${name}_sum`, labels);
  assert.equal(buckets.at(-1)?.value, count, '+Inf bucket equals _count');
  assert.ok(sum !== undefined && count !== undefined);
  return { count, sum };
}
