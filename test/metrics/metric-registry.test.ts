import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Histogram as PromHistogram, Registry as PromRegistry } from 'prom-client';
import { MetricRegistry } from '../../src/core/metrics/metric-registry.ts';
import { instrumentBackend, type EngineCallObserver } from '../../src/core/metrics/instrument-backend.ts';
import { ApiError } from '../../src/core/errors/api-error.ts';
import type { ChatPartBatch } from '../../src/core/chat/chat-stream-part.ts';
import type { ChatRequest } from '../../src/core/chat/chat-types.ts';
import { assertHistogramSeries, parseScrape, valueOf } from './prometheus-scrape.ts';

describe('metric registry (Prometheus text format 0.0.4)', () => {
  it('writes HELP and TYPE before the samples and escapes label values and help text', async () => {
    const registry = new MetricRegistry();
    const counter = registry.counter<'path'>({ name: 'demo_total', help: 'A help with a \\ backslash\nand a line feed.', labelNames: ['path'] });
    const awkward = 'C:\\dir "quoted"\nnext line';
    counter.inc({ path: awkward }, 2);
    counter.inc({ path: awkward });
    counter.inc({ path: 'a,b' });
    counter.inc({ path: 'a' });
    const text = await registry.render();
    assert.match(text, /^# HELP demo_total A help with a \\\\ backslash\\nand a line feed\.\n# TYPE demo_total counter\n/);
    assert.ok(text.includes('demo_total{path="C:\\\\dir \\"quoted\\"\\nnext line"} 3\n'), text);
    const scrape = parseScrape(text);
    assert.equal(valueOf(scrape, 'demo_total', { path: awkward }), 3, 'the value reads back unescaped');
    assert.equal(valueOf(scrape, 'demo_total', { path: 'a,b' }), 1);
    assert.equal(valueOf(scrape, 'demo_total', { path: 'a' }), 1);
    assert.equal(scrape.helps.get('demo_total'), 'A help with a \\ backslash\nand a line feed.');
  });

  it('counts each series apart when they alternate, including series that differ only in their last label', async () => {
    const registry = new MetricRegistry();
    const counter = registry.counter<'route' | 'status'>({ name: 'alternating_total', help: 'Alternating series.', labelNames: ['route', 'status'] });
    for (let round = 0; round < 3; round += 1) {
      counter.inc({ route: '/a', status: '200' });
      counter.inc({ route: '/a', status: '200' });
      counter.inc({ route: '/a', status: '500' });
      counter.inc({ route: '/b', status: '200' });
    }
    const scrape = parseScrape(await registry.render());
    assert.equal(valueOf(scrape, 'alternating_total', { route: '/a', status: '200' }), 6);
    assert.equal(valueOf(scrape, 'alternating_total', { route: '/a', status: '500' }), 3);
    assert.equal(valueOf(scrape, 'alternating_total', { route: '/b', status: '200' }), 3);
    assert.equal(valueOf(scrape, 'alternating_total', { route: '/b', status: '500' }), undefined, 'a series never counted is not served');
  });

  it('keeps histogram buckets cumulative, with +Inf equal to the count and the sum of observations', async () => {
    const registry = new MetricRegistry();
    const histogram = registry.histogram<'kind'>({ name: 'demo_seconds', help: 'Durations.', labelNames: ['kind'], buckets: [1, 0.1, 0.5, 1] });
    const observations = [0.05, 0.1, 0.2, 0.7, 3, 0.1, 42];
    for (const value of observations) histogram.observe({ kind: 'x' }, value);
    histogram.observe({ kind: 'y' }, 0.3);
    const scrape = parseScrape(await registry.render());
    assert.equal(scrape.types.get('demo_seconds'), 'histogram');
    const { count, sum } = assertHistogramSeries(scrape, 'demo_seconds', { kind: 'x' });
    assert.equal(count, observations.length);
    assert.ok(Math.abs(sum - observations.reduce((total, value) => total + value, 0)) < 1e-9);
    // le is inclusive: 0.1 lands in the 0.1 bucket; bounds were sorted and de-duplicated.
    assert.equal(valueOf(scrape, 'demo_seconds_bucket', { kind: 'x', le: '0.1' }), 3);
    assert.equal(valueOf(scrape, 'demo_seconds_bucket', { kind: 'x', le: '0.5' }), 4);
    assert.equal(valueOf(scrape, 'demo_seconds_bucket', { kind: 'x', le: '1' }), 5);
    assert.equal(valueOf(scrape, 'demo_seconds_bucket', { kind: 'x', le: '+Inf' }), 7);
    assert.equal(assertHistogramSeries(scrape, 'demo_seconds', { kind: 'y' }).count, 1);
  });

  it("writes a histogram's text exactly as prom-client's own histogram does for the same observations", async () => {
    // The platform counts observations itself and hands prom-client the samples to write: this
    // holds the two together (labels quoted and escaped, values on and just above a bound, no labels).
    const registry = new MetricRegistry();
    const ours = registry.histogram<'path' | 'kind'>({ name: 'demo_seconds', help: 'Durations.', labelNames: ['path', 'kind'], buckets: [0.5, 0.1, 1] });
    const bare = registry.histogram({ name: 'bare_bytes', help: 'Sizes.', buckets: [10, 100] });
    const reference = new PromRegistry();
    const theirs = new PromHistogram<'path' | 'kind'>({
      name: 'demo_seconds',
      help: 'Durations.',
      labelNames: ['path', 'kind'],
      buckets: [0.1, 0.5, 1],
      registers: [reference],
    });
    const theirsBare = new PromHistogram({ name: 'bare_bytes', help: 'Sizes.', buckets: [10, 100], registers: [reference] });
    const observations: [Record<'path' | 'kind', string>, number][] = [
      [{ path: 'C:\\dir "quoted"\nnext', kind: 'x' }, 0.1],
      [{ path: 'a', kind: 'x' }, 0.10000001],
      [{ path: 'a', kind: 'y' }, 1],
      [{ path: 'C:\\dir "quoted"\nnext', kind: 'x' }, 7],
      [{ path: 'a', kind: 'x' }, 0],
    ];
    for (const [labels, value] of observations) {
      ours.observe(labels, value);
      theirs.observe(labels, value);
    }
    for (const value of [10, 10.5, 1e6]) {
      bare.observe({}, value);
      theirsBare.observe(value);
    }
    assert.equal(await registry.render(), await reference.metrics());
  });

  it('refuses bad names, reserved labels, a counter going down and a metric registered twice', () => {
    const registry = new MetricRegistry();
    assert.throws(() => registry.counter({ name: 'bad-name', help: 'x' }), /not a valid Prometheus metric name/);
    assert.throws(() => registry.histogram<'le'>({ name: 'h', help: 'x', labelNames: ['le'], buckets: [1] }), /not a valid label name/);
    assert.throws(() => registry.gauge<'__x'>({ name: 'g', help: 'x', labelNames: ['__x'] }), /not a valid label name/);
    const counter = registry.counter({ name: 'c_total', help: 'x' });
    assert.throws(() => counter.inc({}, -1), /cannot go down/);
    assert.throws(() => registry.counter({ name: 'c_total', help: 'x' }), /registered twice/);
  });

  it('serves a counter series from its first increment, by 0 too, adds increments made between scrapes, and refuses a label it does not declare', async () => {
    const registry = new MetricRegistry();
    const counter = registry.counter<'kind'>({ name: 'between_total', help: 'Between scrapes.', labelNames: ['kind'] });
    counter.inc({ kind: 'zero' }, 0);
    counter.inc({ kind: 'some' }, 2);
    let scrape = parseScrape(await registry.render());
    assert.equal(valueOf(scrape, 'between_total', { kind: 'zero' }), 0);
    assert.equal(valueOf(scrape, 'between_total', { kind: 'some' }), 2);
    counter.inc({ kind: 'some' }, 3);
    counter.inc({ kind: 'some' });
    scrape = parseScrape(await registry.render());
    assert.equal(valueOf(scrape, 'between_total', { kind: 'some' }), 6);
    assert.equal(valueOf(parseScrape(await registry.render()), 'between_total', { kind: 'some' }), 6, 'a scrape hands nothing over twice');
    assert.throws(() => counter.inc({ kind: 'x', other: 'y' } as never), /label 'other' is not one of kind/);
  });

  it('runs collectors before each scrape; a failing one is reported and the others still render', async () => {
    const registry = new MetricRegistry();
    const depth = registry.gauge<'kind'>({ name: 'depth', help: 'x', labelNames: ['kind'] });
    let rows = [
      { labels: { kind: 'image' }, value: 3 },
      { labels: { kind: 'video' }, value: 1 },
    ];
    registry.collect(() => depth.replaceAll(rows));
    registry.collect(() => {
      throw new Error('table gone');
    });
    const errors: unknown[] = [];
    let scrape = parseScrape(await registry.render((error) => errors.push(error)));
    assert.equal(valueOf(scrape, 'depth', { kind: 'image' }), 3);
    assert.equal(errors.length, 1);
    rows = [{ labels: { kind: 'video' }, value: 2 }];
    scrape = parseScrape(await registry.render());
    assert.equal(valueOf(scrape, 'depth', { kind: 'image' }), 0, 'a series no longer reported reads 0');
    assert.equal(valueOf(scrape, 'depth', { kind: 'video' }), 2);
  });
});

describe('engine call instrumentation', () => {
  const calls: [string, string, number][] = [];
  const errors: [string, string, string][] = [];
  const observer: EngineCallObserver = {
    engineCall: (model, capability, seconds) => calls.push([model, capability, seconds]),
    engineError: (model, capability, code) => errors.push([model, capability, code]),
  };

  it('times calls and whole streams, counts error codes, and leaves out calls the caller aborted', async () => {
    let fail: Error | undefined;
    const backend = instrumentBackend(
      {
        chat: {
          async generate() {
            await new Promise((resolve) => setTimeout(resolve, 30));
            if (fail !== undefined) throw fail;
            return { text: 'hi' } as never;
          },
          async *stream(): AsyncGenerator<ChatPartBatch> {
            yield [{ type: 'text', text: 'a' }];
            await new Promise((resolve) => setTimeout(resolve, 30));
            if (fail !== undefined) throw fail;
            yield [{ type: 'finish', reason: 'stop', usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0 } }];
          },
        },
      },
      'glm-4.7',
      observer,
    );
    assert.equal(backend.image, undefined, 'a capability the engine lacks stays absent');
    const request = (signal: AbortSignal) => ({ signal }) as unknown as ChatRequest;
    await backend.chat?.generate(request(new AbortController().signal));
    for await (const part of backend.chat?.stream(request(new AbortController().signal)) ?? []) assert.ok(part);
    assert.equal(calls.length, 2);
    assert.ok(
      calls.every(([model, capability, seconds]) => model === 'glm-4.7' && capability === 'chat' && seconds >= 0.025),
      JSON.stringify(calls),
    );

    fail = new ApiError('1234', 'engine down');
    await assert.rejects(backend.chat?.generate(request(new AbortController().signal)) ?? Promise.resolve(), /engine down/);
    fail = new TypeError('broken');
    await assert.rejects(async () => {
      for await (const part of backend.chat?.stream(request(new AbortController().signal)) ?? []) assert.ok(part);
    }, /broken/);
    assert.deepEqual(errors, [
      ['glm-4.7', 'chat', '1234'],
      ['glm-4.7', 'chat', 'TypeError'],
    ]);

    const aborted = new AbortController();
    aborted.abort();
    fail = new Error('aborted by the client');
    const before = calls.length;
    await assert.rejects(backend.chat?.generate(request(aborted.signal)) ?? Promise.resolve());
    assert.equal(calls.length, before, 'an aborted call is not timed');
    assert.equal(errors.length, 2, 'an aborted call is not an engine error');
  });
});
