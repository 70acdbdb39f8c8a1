// The baseline a proxy cannot beat: a minimal Node HTTP pass-through to TARGET (keep-alive, piped).
// FRESH_STREAMS=1: a streamed call (a body with "stream": true) goes on a connection of its own,
// as a client of llama-server must (it closes the connection after every streamed answer); the
// body is read first to tell, which costs the proxy one small buffer a call.
// MORE_TARGETS="name=url …": a path that begins with /name/ goes to that url instead (one proxy
// process, warmed once, in front of several engines).
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const target = new URL(process.env['TARGET'] ?? '');
const moreTargets = new Map<string, URL>(
  (process.env['MORE_TARGETS'] ?? '')
    .split(' ')
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [name = '', url = ''] = entry.split('=');
      return [`/${name}/`, new URL(url)] as const;
    }),
);

/** The engine a path goes to and the path there. */
function destination(path: string): { readonly url: URL; readonly path: string } {
  const slash = path.indexOf('/', 1);
  const named = slash < 0 ? undefined : moreTargets.get(path.slice(0, slash + 1));
  return named === undefined ? { url: target, path } : { url: named, path: path.slice(slash) };
}
const freshStreams = process.env['FRESH_STREAMS'] === '1';
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function forward(incoming: IncomingMessage, outgoing: ServerResponse, body: Buffer | undefined, fresh: boolean): void {
  const { url, path } = destination(incoming.url ?? '');
  const upstream = request(
    {
      host: url.hostname,
      port: url.port,
      path: `${url.pathname}${path}`,
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
