import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { vllmChunk, vllmCompletion, vllmUsageChunk } from '../helpers/fake-openai-server.ts';

/** Every answer of the gated engine uses this many tokens (10 prompt + 5 completion). */
const tokensPerAnswer = { promptTokens: 10, completionTokens: 5 };

/**
 * An OpenAI-compatible chat engine on loopback whose streams stay open until the test opens the
 * gate: a streamed answer sends its first chunk at once (the platform then answers 200), the rest
 * only after `release()`. Plain answers come at once. It counts what reached it.
 */
export interface GatedChatEngine {
  readonly baseUrl: string;
  /** Requests that reached the engine (calls the platform admitted). */
  received(): number;
  /** Streams the client (the platform) closed before their end. */
  closedEarly(): number;
  /** Lets every stream open now finish. */
  release(): void;
  close(): Promise<void>;
}

export async function startGatedChatEngine(): Promise<GatedChatEngine> {
  let received = 0;
  let closedEarly = 0;
  let open = gate();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { stream?: boolean };
      if (body.stream !== true) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(vllmCompletion({ content: 'ok', usage: tokensPerAnswer })));
        return;
      }
      response.on('close', () => {
        if (!response.writableFinished) closedEarly += 1;
      });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`data: ${JSON.stringify(vllmChunk({ role: 'assistant', content: 'Hel' }))}\n\n`);
      void open.promise.then(() => {
        if (response.destroyed) return;
        for (const chunk of [vllmChunk({ content: 'lo' }), vllmChunk({}, 'stop'), vllmUsageChunk(tokensPerAnswer)]) {
          response.write(`data: ${JSON.stringify(chunk)}\n\n`);
        }
        response.end('data: [DONE]\n\n');
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received: () => received,
    closedEarly: () => closedEarly,
    release() {
      open.resolve();
      open = gate();
    },
    async close() {
      open.resolve();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function gate(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
