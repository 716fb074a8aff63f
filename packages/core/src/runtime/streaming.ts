import type { EventLog } from './events.js';

/**
 * `true`: every model call streams (`streamText`, deltas as they arrive). `false`: one
 * `generateText` call per tick, the whole text as one `model:delta`. `'auto'` (the default):
 * stream while someone reads the stream — a `session.subscribe(fn, { types: ['model:delta'] })`
 * subscription — and otherwise make the cheaper non-streaming call.
 */
export type StreamingOption = boolean | 'auto';

/** Decided per model call, so a delta subscriber added between ticks takes effect next tick. */
export function shouldStream(option: StreamingOption | undefined, events: EventLog): boolean {
  if (option === true || option === false) return option;
  return events.requested('model:delta');
}
