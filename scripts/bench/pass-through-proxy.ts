// The baseline a proxy cannot beat: a minimal Node HTTP pass-through to TARGET (keep-alive, piped).
// FRESH_STREAMS=1: a streamed call (a body with "stream": true) goes on a connection of its own,
// as a client of llama-server must (it closes the connection after every streamed answer); the
// body is read first to tell, which costs the proxy one small buffer a call.
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const target = new URL(process.env['TARGET'] ?? '');
const freshStreams = process.env['FRESH_STREAMS'] === '1';
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function forward(incoming: IncomingMessage, outgoing: ServerResponse, body: Buffer | undefined, fresh: boolean): void {
  const upstream = request(
    {
      host: target.hostname,
      port: target.port,
      path: `${target.pathname}${incoming.url ?? ''}`,
      method: incoming.method,
      headers: incoming.headers,
      agent: fresh ? false : agent,
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  upstream.on('error', () => outgoing.destroy());
  if (body === undefined) incoming.pipe(upstream);
  else upstream.end(body);
}

const server = createServer((incoming, outgoing) => {
  if (!freshStreams) {
    forward(incoming, outgoing, undefined, false);
    return;
  }
  const pieces: Buffer[] = [];
  incoming.on('data', (piece: Buffer) => pieces.push(piece));
  incoming.on('end', () => {
    const body = Buffer.concat(pieces);
    forward(incoming, outgoing, body, /"stream"\s*:\s*true/.test(body.toString('latin1')));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
