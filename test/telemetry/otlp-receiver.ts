import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One span as OTLP/JSON carries it, its attributes flattened to a map. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly attributes: ReadonlyMap<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  /** The service.name of the resource that sent it. */
  readonly serviceName: unknown;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds /v1/traces). */
  readonly endpoint: string;
  /** Every span received so far, in arrival order. */
  readonly spans: readonly ReceivedSpan[];
  /** The spans received, once `ready` holds for them; fails after `timeoutMs`. */
  waitFor(ready: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<readonly ReceivedSpan[]>;
  close(): Promise<void>;
}

/** Bodies over this are refused: a test exporter sends a few kilobytes. */
const maxBodyBytes = 8 * 1024 * 1024;

/**
 * An OTLP/HTTP trace receiver for tests, speaking the JSON protocol (OTEL_EXPORTER_OTLP_PROTOCOL
 * =http/json) on 127.0.0.1: it decodes each export request into spans and answers as a collector
 * does (200 with an empty partial success).
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((request, response) => {
    readBody(request).then(
      (body) => {
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
          return;
        }
        spans.push(...decodeExport(body));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      },
      () => response.writeHead(400).end(),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    async waitFor(ready, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!ready(spans)) {
        if (Date.now() > until) throw new Error(`the spans expected did not arrive within ${timeoutMs} ms; received: ${JSON.stringify(spans.map(describe))}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return spans;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of request) {
    bytes += (chunk as Buffer).length;
    if (bytes > maxBodyBytes) throw new Error('export request too large');
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

interface JsonAttribute {
  readonly key: string;
  readonly value: Record<string, unknown>;
}

interface JsonSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes?: JsonAttribute[];
  readonly status?: { readonly code?: number };
  readonly links?: { readonly traceId: string; readonly spanId: string }[];
}

interface JsonExport {
  readonly resourceSpans?: { readonly resource?: { readonly attributes?: JsonAttribute[] }; readonly scopeSpans?: { readonly spans?: JsonSpan[] }[] }[];
}

function decodeExport(body: Buffer): ReceivedSpan[] {
  const decoded = JSON.parse(body.toString('utf8')) as JsonExport;
  return (decoded.resourceSpans ?? []).flatMap((resourceSpans) => {
    const serviceName = attributeMap(resourceSpans.resource?.attributes).get('service.name');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId === undefined || span.parentSpanId === '' ? undefined : span.parentSpanId,
        name: span.name,
        kind: span.kind,
        attributes: attributeMap(span.attributes),
        statusCode: span.status?.code ?? 0,
        links: span.links ?? [],
        serviceName,
      })),
    );
  });
}

/** OTLP's AnyValue: one of stringValue, intValue (a decimal string in JSON), boolValue, doubleValue. */
function attributeMap(attributes: readonly JsonAttribute[] | undefined): Map<string, unknown> {
  const map = new Map<string, unknown>();
  for (const { key, value } of attributes ?? []) {
    if ('intValue' in value) map.set(key, Number(value['intValue']));
    else map.set(key, value['stringValue'] ?? value['boolValue'] ?? value['doubleValue']);
  }
  return map;
}

function describe(span: ReceivedSpan): Record<string, unknown> {
  return { name: span.name, traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId, attributes: Object.fromEntries(span.attributes) };
}
