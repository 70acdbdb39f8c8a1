import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { errorCatalogue, type ErrorCodeEntry } from '../../src/core/errors/error-catalogue.ts';

/**
 * docs/wire.md §2.2 is where a reader (or an operator reading a client's error) finds what a code
 * means and who answers it; the catalogue is what the server sends. Like fastify's errors test,
 * this keeps the two from drifting: every catalogue code has one row, with the same HTTP status and
 * retry hint, and the table names no code the server cannot send.
 */
const wire = readFileSync(new URL('../../docs/wire.md', import.meta.url), 'utf8');

interface DocumentedCode {
  readonly status: number;
  readonly retryable: boolean;
  readonly thrownBy: string;
}

function documentedCodes(): Map<string, DocumentedCode> {
  const section = wire.split('\n### 2.2 ')[1]?.split('\n### ')[0];
  assert.ok(section !== undefined, 'docs/wire.md has a section "### 2.2 Error codes"');
  const rows = new Map<string, DocumentedCode>();
  for (const line of section.split('\n')) {
    const row = /^\| `(\d+)` \| (\d+) \| (yes|no) \| (.*) \|$/.exec(line);
    if (row === null) continue;
    const [, code = '', status = '', retry = '', thrownBy = ''] = row;
    assert.ok(!rows.has(code), `code ${code} has two rows`);
    rows.set(code, { status: Number(status), retryable: retry === 'yes', thrownBy: thrownBy.trim() });
  }
  return rows;
}

describe('docs/wire.md error-code table', () => {
  const rows = documentedCodes();
  const catalogue: ReadonlyMap<string, ErrorCodeEntry> = new Map(Object.entries(errorCatalogue));

  it('has a row for every code in the catalogue', () => {
    const missing = [...catalogue.keys()].filter((code) => !rows.has(code));
    assert.deepEqual(missing, [], `add these codes to docs/wire.md §2.2: ${missing.join(', ')}`);
  });

  it('names no code the catalogue lacks', () => {
    const extra = [...rows.keys()].filter((code) => !catalogue.has(code));
    assert.deepEqual(extra, [], `docs/wire.md §2.2 lists codes the server cannot send: ${extra.join(', ')}`);
  });

  it("gives each code the catalogue's HTTP status and retry hint, and says who answers it", () => {
    for (const [code, entry] of catalogue) {
      const row = rows.get(code);
      if (row === undefined) continue;
      assert.equal(row.status, entry.status, `docs/wire.md §2.2: code ${code} is sent with HTTP ${entry.status}`);
      assert.equal(row.retryable, entry.retryable, `docs/wire.md §2.2: code ${code} is ${entry.retryable ? '' : 'not '}retryable`);
      assert.notEqual(row.thrownBy, '', `docs/wire.md §2.2: say who answers code ${code}`);
    }
  });
});
