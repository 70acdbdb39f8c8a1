import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server of malformed resources for the fuzzer's URL fields: what the reader, the OCR
 * and PDF tools and the media inliners must refuse cleanly rather than crash on.
 */
export interface MalformedWeb {
  /** Absolute URLs of every resource. */
  readonly urls: readonly string[];
  close(): Promise<void>;
}

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Malformed bodies by path, with the content type each claims. */
const malformedResources: Readonly<Record<string, { readonly type: string; readonly body: Buffer; readonly headers?: Record<string, string> }>> = {
  '/deep.html': {
    type: 'text/html; charset=utf-8',
    body: Buffer.from(`<html><body>${'<div>'.repeat(10_000)}deep text${'</div>'.repeat(10_000)}</body></html>`),
  },
  '/unclosed.html': { type: 'text/html', body: Buffer.from(`<html><head><title>${'<b>'.repeat(5000)}<script>`) },
  '/binary.html': { type: 'text/html; charset=x-unknown', body: Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 131) % 256)) },
  '/empty.html': { type: 'text/html', body: Buffer.alloc(0) },
  '/bad-gzip.html': { type: 'text/html', body: Buffer.from('this is not gzip'), headers: { 'content-encoding': 'gzip' } },
  '/broken.pdf': {
    type: 'application/pdf',
    body: Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R\nendobj\ntrailer\n<< /Root 1 0 R /Size 99999999 >>\n%%EOF'),
  },
  '/header-only.pdf': { type: 'application/pdf', body: Buffer.from('%PDF-1.4\n') },
  '/broken.png': {
    type: 'image/png',
    body: Buffer.concat([pngSignature, Buffer.from([0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0x7f, 0xff, 0xff, 0xff, 0x7f, 0xff])]),
  },
  '/huge-dimensions.png': {
    type: 'image/png',
    body: Buffer.concat([pngSignature, Buffer.from([0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 1, 0, 0, 0, 1, 0, 0, 8, 6, 0, 0, 0, 0, 0, 0, 0])]),
  },
  '/not-an-image.jpg': { type: 'image/jpeg', body: Buffer.from('<html>surprise</html>') },
};

/** Data URLs and bare base64 of the same malformed files, for fields that take inline content. */
export const malformedInline: readonly string[] = ['/broken.png', '/huge-dimensions.png', '/broken.pdf', '/header-only.pdf'].flatMap((path) => {
  const resource = malformedResources[path];
  if (resource === undefined) return [];
  const base64 = resource.body.toString('base64');
  return [`data:${resource.type};base64,${base64}`, base64];
});

export async function startMalformedWeb(): Promise<MalformedWeb> {
  const server = createServer((request, response) => {
    const resource = malformedResources[new URL(request.url ?? '/', 'http://127.0.0.1').pathname];
    if (resource === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': resource.type, 'content-length': resource.body.length, ...resource.headers });
    response.end(resource.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    urls: Object.keys(malformedResources).map((path) => `${origin}${path}`),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
