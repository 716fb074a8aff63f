import type * as OtelApi from '@opentelemetry/api';

/**
 * The OpenTelemetry API, loaded when a run may trace (issue 42: a fast start). Its 44 modules
 * were a sixth of `import('@agate/core')`, and a process that registers no tracer provider
 * never needs them: without a global provider every span is a no-op. The API keeps its state on
 * one global (this key, version 1), so a process that registered a provider has that global,
 * and the API loaded here is the one the app registered with (the same module).
 */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

let api: typeof OtelApi | undefined;

/**
 * Whether a tracer provider or a context manager is registered. The API keeps its global object
 * after `trace.disable()` / `context.disable()` (it only deletes the entry), so an app that
 * registered and then disabled tracing holds `{ version }` alone: nothing could record there.
 */
export function otelRegistered(): boolean {
  const registered = (globalThis as Record<symbol, { trace?: unknown; context?: unknown }>)[
    OTEL_GLOBAL
  ];
  return registered?.trace !== undefined || registered?.context !== undefined;
}

/** Loads the API (once per process). */
export async function loadOtel(): Promise<typeof OtelApi> {
  api ??= await import('@opentelemetry/api');
  return api;
}

/** The API if it was loaded (`loadOtel`), else `undefined`: nothing can be traced yet. */
export function loadedOtel(): typeof OtelApi | undefined {
  return api;
}

/** The API, which the caller knows is loaded (a span is open, so a run loaded it). */
export function otel(): typeof OtelApi {
  if (api === undefined) throw new Error('@agate/core: the OpenTelemetry API is not loaded yet.');
  return api;
}
