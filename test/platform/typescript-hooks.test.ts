import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
// @ts-expect-error: a plain JavaScript module (it runs before TypeScript can be loaded), without types.
import { load } from '../../bin/typescript-hooks.mjs';

type Load = (url: string, context: object, nextLoad: (url: string) => Promise<unknown>) => Promise<{ format: string; source: string }>;

describe('bin/typescript-hooks.mjs (how the binary runs the sources)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ts-hooks-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('strips the types of a .ts module and leaves its functions as written (no __name wrappers)', async () => {
    const file = join(dir, 'sample.ts');
    writeFileSync(
      file,
      [
        "import type { Server } from 'node:http';",
        'export class Counter { count: number = 0; #step = 1; add(by?: number): number { return (this.count += by ?? this.#step); } }',
        'export const handlers = (server?: Server) => [() => 1, function named(): number { return 2; }, server];',
      ].join('\n'),
    );
    const loaded = await (load as Load)(pathToFileURL(file).href, {}, () => Promise.reject(new Error('not a .ts file')));
    assert.equal(loaded.format, 'module');
    assert.doesNotMatch(loaded.source, /__name|import type|: number/);
    const module = (await import(`data:text/javascript,${encodeURIComponent(loaded.source)}`)) as { Counter: new () => { add(by?: number): number } };
    const counter = new module.Counter();
    assert.equal(counter.add(), 1);
    assert.equal(counter.add(2), 3);
  });

  it('hands other URLs to the next loader', async () => {
    const next = await (load as Load)('node:fs', {}, (url) => Promise.resolve({ format: 'builtin', source: url }));
    assert.deepEqual(next, { format: 'builtin', source: 'node:fs' });
  });
});
