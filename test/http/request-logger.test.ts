import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { lazyRequestLogger, rebind } from '../../src/http/request-logger.ts';

/** A pino logger (Fastify's own) at `level` writing its lines into `lines`, counting the children made of it. */
function capturingLogger(level: string): { logger: FastifyBaseLogger; lines: Record<string, unknown>[]; children: () => number } {
  const lines: Record<string, unknown>[] = [];
  const app = Fastify({ logger: { level, stream: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } } });
  const logger = app.log;
  let made = 0;
  const child = logger.child.bind(logger);
  logger.child = (bindings, options) => {
    made += 1;
    return child(bindings, options);
  };
  return { logger, lines, children: () => made };
}

describe('lazyRequestLogger', () => {
  it('makes no child logger for a request that writes nothing at an enabled level', () => {
    const { logger, lines, children } = capturingLogger('warn');
    const log = lazyRequestLogger(logger, { request_id: 'r-1' }, {});
    log.info('incoming request');
    log.debug({ detail: 1 }, 'a detail');
    assert.equal(children(), 0);
    assert.deepEqual(lines, []);
    assert.equal(log.level, 'warn');
  });

  it('writes enabled lines through one child that carries the request id', () => {
    const { logger, lines, children } = capturingLogger('info');
    const log = lazyRequestLogger(logger, { request_id: 'r-2' }, {});
    log.info('first');
    log.error({ code: 'E1' }, 'second');
    assert.equal(children(), 1);
    assert.deepEqual(
      lines.map((line) => [line['request_id'], line['msg'], line['code']]),
      [
        ['r-2', 'first', undefined],
        ['r-2', 'second', 'E1'],
      ],
    );
  });

  it("rebinds to a client's request id, which then stands alone in the lines", () => {
    const { logger, lines } = capturingLogger('info');
    const log = rebind(lazyRequestLogger(logger, { request_id: 'generated-1' }, {}), { request_id: 'client-req-0001' });
    log.warn('refused');
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.['request_id'], 'client-req-0001');
    assert.equal(lines[0]?.['msg'], 'refused');
  });

  it("gives a route's own level a real child at once", () => {
    const { logger, lines, children } = capturingLogger('warn');
    const log = lazyRequestLogger(logger, { request_id: 'r-3' }, { level: 'debug' });
    log.debug('route detail');
    assert.equal(children(), 1);
    assert.equal(lines[0]?.['msg'], 'route detail');
  });
});
