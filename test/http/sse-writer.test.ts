import assert from 'node:assert/strict';
import { get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import type { PlatformMetrics } from '../../src/core/metrics/platform-metrics.ts';
import type { App } from '../../src/http/app-types.ts';
import { installResponseEnd } from '../../src/http/response-end.ts';
import { SseWriter } from '../../src/http/sse-writer.ts';

const eventCount = 512;
const eventText = 'x'.repeat(64 * 1024);

/** A Fastify app with what SseWriter reads of the platform's (the response's end, the stream gauge, the request id). */
function streamingApp(): App {
  const app = Fastify();
  app.decorate('metrics', { streamOpened: () => () => undefined } as unknown as PlatformMetrics);
  app.decorateRequest('requestId', 'sse-writer-test');
  app.decorateRequest('routeOptionsRead', undefined);
  installResponseEnd(app as unknown as App);
  return app as unknown as App;
}

/**
 * How a producer hands an event over and waits: `send` for each event, or batches of `add` then
 * `flush` (the chat relay: a batch, already in memory, goes out whole before the producer waits).
 */
interface Producer {
  readonly eventsAtOnce: number;
  produce(events: SseWriter, index: number): Promise<void> | undefined;
}

const eachSent: Producer = { eventsAtOnce: 1, produce: (events, index) => events.send({ index, text: eventText }) };
const batchesOfFour: Producer = {
  eventsAtOnce: 4,
  produce(events, index) {
    events.add({ index, text: eventText });
    return index % 4 === 3 ? events.flush() : undefined;
  },
};

describe('SseWriter', () => {
  for (const [name, producer] of [
    ['one send per event', eachSent],
    ['batches added and flushed', batchesOfFour],
  ] as const) {
    it(`holds a producer with every event at hand to what the response may buffer, until a slow client reads, and loses nothing (${name})`, async () => {
      await slowClientRun(producer);
    });
  }
});

/** 512 events of 64 KiB to a client that reads nothing until the producer had to wait, then everything. */
async function slowClientRun(producer: Producer): Promise<void> {
  const app = streamingApp();
  let largestBuffered = 0;
  let highWaterMark = 0;
  let sentWhenBlocked = 0;
  let blocked: (sent: number) => void = () => undefined;
  const producerBlocked = new Promise<void>((resolve) => (blocked = (sent) => ((sentWhenBlocked ||= sent), resolve())));
  app.get('/events', async (request, reply) => {
    const events = new SseWriter(request, reply);
    events.open();
    highWaterMark = reply.raw.writableHighWaterMark;
    for (let index = 0; index < eventCount; index += 1) {
      const sent = producer.produce(events, index);
      largestBuffered = Math.max(largestBuffered, reply.raw.writableLength);
      if (reply.raw.writableNeedDrain) blocked(index + 1);
      await sent;
    }
    blocked(eventCount);
    await events.end();
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { port } = app.server.address() as AddressInfo;
    const response = await new Promise<IncomingMessage>((resolve, reject) => get(`http://127.0.0.1:${port}/events`, resolve).on('error', reject));
    response.pause();
    // The client reads nothing until the producer has had to wait: 32 MiB outgrow any socket buffer.
    await producerBlocked;
    assert.ok(sentWhenBlocked < eventCount, 'the producer waited for the client before it had sent everything');
    let text = '';
    response.setEncoding('utf8');
    for await (const piece of response) text += piece as string;
    const events = text.split('\n\n').filter((event) => event !== '');
    assert.equal(events.length, eventCount + 1);
    events.slice(0, eventCount).forEach((event, index) => assert.equal((JSON.parse(event.slice('data: '.length)) as { index: number }).index, index));
    assert.equal(events.at(-1), 'data: [DONE]');
    // Never more than the high-water mark and the events handed over at once that crossed it (with their framing).
    const bound = highWaterMark + producer.eventsAtOnce * (eventText.length + 1024);
    assert.ok(largestBuffered <= bound, `${largestBuffered} bytes buffered, high-water mark ${highWaterMark}`);
  } finally {
    await app.close();
  }
}
