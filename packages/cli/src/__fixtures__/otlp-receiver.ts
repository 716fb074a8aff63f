/**
 * A minimal OTLP/HTTP trace receiver on 127.0.0.1 for the CLI's tracing tests: it keeps every
 * POST /v1/traces and reads the span names and service names out of OTLP/JSON bodies.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpPost {
  contentType: string | undefined;
  body: Buffer;
}

export interface OtlpReceiver {
  /** The endpoint for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  endpoint: string;
  posts: OtlpPost[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const posts: OtlpPost[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const contentType = request.headers['content-type'];
      posts.push({ contentType, body: Buffer.concat(chunks) });
      // An empty ExportTraceServiceResponse, in the encoding the exporter sent.
      if (contentType === 'application/json') {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface OtlpJson {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans?: Array<{ spans?: Array<{ name: string; spanId: string; parentSpanId?: string }> }>;
  }>;
}

/** The spans of OTLP/JSON posts, each with its service's name. */
export function jsonSpans(
  posts: readonly OtlpPost[],
): Array<{ name: string; service: string | undefined; spanId: string; parentSpanId?: string }> {
  return posts
    .filter((post) => post.contentType === 'application/json')
    .flatMap((post) => (JSON.parse(post.body.toString('utf8')) as OtlpJson).resourceSpans ?? [])
    .flatMap((resourceSpans) => {
      const service = resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')
        ?.value.stringValue;
      return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
        (scope.spans ?? []).map((span) => ({ ...span, service })),
      );
    });
}
