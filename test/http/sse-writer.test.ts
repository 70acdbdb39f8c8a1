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

describe('SseWriter', () => {
  it('holds a producer with every event at hand to what the response may buffer, until a slow client reads, and loses nothing', async () => {
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
        const sent = events.send({ index, text: eventText });
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
      // Never more than the high-water mark and the event that crossed it (with its framing).
      assert.ok(largestBuffered <= highWaterMark + eventText.length + 1024, `${largestBuffered} bytes buffered, high-water mark ${highWaterMark}`);
    } finally {
      await app.close();
    }
  });
});
