// The fleet benchmark's load balancer: a minimal Node HTTP pass-through that sends each request to
// the next of TARGETS (comma-separated origins) in turn, with a keep-alive pool per target.
// Prints its origin on stdout. Deliberately as simple as the chat benchmark's pass-through proxy,
// so both limit settings pay the same, small, balancing cost.
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

const upstreams = (process.env['TARGETS'] ?? '')
  .split(',')
  .filter((origin) => origin !== '')
  .map((origin) => ({ url: new URL(origin), agent: new Agent({ keepAlive: true, maxSockets: 256 }) }));
if (upstreams.length === 0) throw new Error('TARGETS: give the origins to balance over, comma-separated');

let next = 0;
const server = createServer((incoming, outgoing) => {
  const upstream = upstreams[next % upstreams.length];
  next += 1;
  if (upstream === undefined) return;
  const forwarded = request(
    { host: upstream.url.hostname, port: upstream.url.port, path: incoming.url, method: incoming.method, headers: incoming.headers, agent: upstream.agent },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  forwarded.on('error', () => outgoing.destroy());
  incoming.pipe(forwarded);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
