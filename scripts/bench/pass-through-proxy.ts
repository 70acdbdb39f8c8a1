// The baseline a proxy cannot beat: a minimal Node HTTP pass-through to TARGET (keep-alive, piped).
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

const target = new URL(process.env['TARGET'] ?? '');
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const server = createServer((incoming, outgoing) => {
  const upstream = request(
    { host: target.hostname, port: target.port, path: `${target.pathname}${incoming.url ?? ''}`, method: incoming.method, headers: incoming.headers, agent },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  upstream.on('error', () => outgoing.destroy());
  incoming.pipe(upstream);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
