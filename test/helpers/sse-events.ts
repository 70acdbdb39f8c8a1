import assert from 'node:assert/strict';

/**
 * Splits an event-stream body into its `data:` payloads, asserting the framing every official
 * client needs (docs/wire.md §3.1): only `data: ` lines, each event ended by a blank line, and
 * `[DONE]` last. Returns the JSON events before `[DONE]`.
 */
export function parseSseBody(body: string): Record<string, unknown>[] {
  assert.ok(body.endsWith('data: [DONE]\n\n'), `the stream ends with [DONE]: ${JSON.stringify(body.slice(-80))}`);
  const events = body.slice(0, -'\n\n'.length).split('\n\n');
  for (const event of events) {
    assert.ok(event.startsWith('data: ') && !event.includes('\n'), `one data line per event: ${JSON.stringify(event)}`);
  }
  assert.equal(events.pop(), 'data: [DONE]');
  return events.map((event) => JSON.parse(event.slice('data: '.length)) as Record<string, unknown>);
}
