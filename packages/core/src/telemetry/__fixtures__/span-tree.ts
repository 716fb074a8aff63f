import { type AttributeValue, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** A real SDK provider that keeps finished spans in memory (not registered globally). */
export function memoryTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { exporter, provider, tracer: provider.getTracer('test') };
}

/**
 * Finished spans as an indented tree: name, kind and status, then attributes (sorted) and
 * events, children below. No ids or times, so the text is stable run to run. Siblings are in
 * the order they finished, which in the tick loop is the order they started (siblings never
 * overlap: tools run one at a time, decisions take no time).
 */
export function formatSpanTree(spans: readonly ReadableSpan[]): string {
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const children = new Map<string | undefined, ReadableSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent !== undefined && ids.has(parent) ? parent : undefined;
    children.set(key, [...(children.get(key) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (span: ReadableSpan, depth: number) => {
    const pad = '  '.repeat(depth);
    const kind = span.kind === SpanKind.INTERNAL ? '' : ` (${SpanKind[span.kind].toLowerCase()})`;
    const status =
      span.status.code === SpanStatusCode.ERROR
        ? ` [ERROR${span.status.message ? `: ${span.status.message}` : ''}]`
        : '';
    lines.push(`${pad}${span.name}${kind}${status}`);
    for (const key of Object.keys(span.attributes).sort()) {
      lines.push(`${pad}  · ${key} = ${show(key, span.attributes[key])}`);
    }
    for (const event of span.events) {
      const attributes = Object.entries(event.attributes ?? {})
        .filter(([key]) => key !== 'exception.stacktrace')
        .map(([key, value]) => `${key}=${show(key, value)}`);
      lines.push(`${pad}  ! ${event.name} ${attributes.join(' ')}`);
    }
    for (const child of children.get(span.spanContext().spanId) ?? []) walk(child, depth + 1);
  };
  for (const root of children.get(undefined) ?? []) walk(root, 0);
  return lines.join('\n');
}

/** Attributes that measure time: shown as `<seconds>`, so snapshots stay stable. */
const TIMINGS = new Set(['gen_ai.response.time_to_first_chunk']);

function show(key: string, value: AttributeValue | undefined): string {
  if (TIMINGS.has(key)) return typeof value === 'number' && value >= 0 ? '<seconds>' : 'invalid';
  return JSON.stringify(value);
}

/** A span event (a guard decision, a fact) with the span it was recorded on. */
export interface RecordedEvent {
  name: string;
  attributes: Record<string, AttributeValue | undefined>;
  on: ReadableSpan;
}

/** Every span event of this name, in the order the spans finished and the events were added. */
export function eventsNamed(spans: readonly ReadableSpan[], name: string): RecordedEvent[] {
  return spans.flatMap((span) =>
    span.events
      .filter((event) => event.name === name)
      .map((event) => ({ name: event.name, attributes: event.attributes ?? {}, on: span })),
  );
}
