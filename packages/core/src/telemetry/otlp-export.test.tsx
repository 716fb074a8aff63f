import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { scriptedModel } from '@agate/testing';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, Timeline, Tool, User } from '../index.js';
import { TRACER_VERSION } from './session-tracing.js';

/** OTLP/JSON as the exporter sends it (the parts this test reads). */
interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  attributes?: OtlpAttribute[];
  events?: Array<{ name: string; attributes?: OtlpAttribute[] }>;
}
interface OtlpRequest {
  resourceSpans: Array<{
    scopeSpans: Array<{ scope: { name: string; version?: string }; spans: OtlpSpan[] }>;
  }>;
}

/** A minimal OTLP/HTTP receiver on loopback: keeps every POST /v1/traces body. */
let receiver: Server;
let url: string;
const received: Array<{ contentType: string | undefined; body: OtlpRequest }> = [];

beforeAll(async () => {
  receiver = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        received.push({
          contentType: req.headers['content-type'],
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest,
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const value = (attributes: OtlpAttribute[] | undefined, key: string): unknown => {
  const found = attributes?.find((a) => a.key === key)?.value;
  if (found === undefined) return undefined;
  if (found.intValue !== undefined) return Number(found.intValue);
  if (found.arrayValue !== undefined) return found.arrayValue.values?.map((v) => v.stringValue);
  return found.stringValue ?? found.boolValue ?? found.doubleValue;
};

describe('a run exported over OTLP/HTTP', () => {
  it('arrives at a real receiver with the GenAI spans, their parents and the scope version', async () => {
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url }))],
    });
    const session = createSession(
      <>
        <User>Weather in Oslo?</User>
        <Timeline />
        <Tool
          name="weather"
          description="Current weather for a city."
          input={z.object({ city: z.string() })}
          execute={({ city }) => `rain in ${city}`}
        />
      </>,
      {
        id: 'otlp-run',
        name: 'forecaster',
        model: scriptedModel(
          [
            {
              toolCalls: [{ toolName: 'weather', input: { city: 'Oslo' }, toolCallId: 'w1' }],
              usage: { inputTokens: 20, outputTokens: 5 },
            },
            { text: 'Rain.', usage: { inputTokens: 30, outputTokens: 2 } },
          ],
          { modelId: 'gpt-x' },
        ),
        telemetry: { tracer: provider.getTracer('@agate/core', TRACER_VERSION) },
      },
    );
    expect((await session.run()).status).toBe('completed');
    await provider.forceFlush();
    await provider.shutdown();

    expect(received.length).toBeGreaterThan(0);
    expect(received[0]?.contentType).toBe('application/json');
    const scopes = received.flatMap((r) => r.body.resourceSpans.flatMap((rs) => rs.scopeSpans));
    expect(new Set(scopes.map((s) => `${s.scope.name}@${s.scope.version}`))).toEqual(
      new Set([`@agate/core@${TRACER_VERSION}`]),
    );
    const spans = scopes.flatMap((s) => s.spans);
    const byName = (name: string) => spans.filter((s) => s.name === name);

    const [root] = byName('invoke_agent forecaster');
    expect(root?.parentSpanId ?? '').toBe('');
    expect(value(root?.attributes, 'gen_ai.agent.name')).toBe('forecaster');
    expect(value(root?.attributes, 'gen_ai.conversation.id')).toBe('otlp-run');
    expect(value(root?.attributes, 'gen_ai.usage.input_tokens')).toBeUndefined();

    const ticks = byName('agate.tick');
    expect(ticks.map((t) => t.parentSpanId)).toEqual([root?.spanId, root?.spanId]);
    const chats = byName('chat gpt-x');
    expect(chats.map((c) => value(c.attributes, 'gen_ai.usage.input_tokens'))).toEqual([20, 30]);
    expect(chats.map((c) => value(c.attributes, 'gen_ai.response.id'))).toEqual([
      'response-1',
      'response-2',
    ]);
    expect(chats.map((c) => value(c.attributes, 'gen_ai.response.finish_reasons'))).toEqual([
      ['tool_call'],
      ['stop'],
    ]);
    expect(chats[0]?.kind).toBe(3); // SPAN_KIND_CLIENT in OTLP's numbering
    const [tool] = byName('execute_tool weather');
    expect(tool?.parentSpanId).toBe(ticks[0]?.spanId);
    expect(value(tool?.attributes, 'gen_ai.tool.call.id')).toBe('w1');
    expect(value(tool?.attributes, 'gen_ai.tool.description')).toBe('Current weather for a city.');
  });
});
