/**
 * The standard OpenTelemetry variables for `agate run` and `agate worker`: when one of them is
 * set, the OpenTelemetry Node SDK (`@opentelemetry/sdk-node`, an optional peer of the CLI) is
 * started in this process and configures the trace exporter from the environment, as every
 * OpenTelemetry program does; the spans Agate makes (docs/observability.md) go there. Nothing
 * is loaded otherwise, and nothing is added to the environment of the processes a run starts
 * (no NODE_OPTIONS): the SDK lives in this process only.
 */

/** The variables that turn tracing on. */
export const OTEL_VARIABLES = [
  'OTEL_TRACES_EXPORTER',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_SERVICE_NAME',
] as const;

/** The service name when the environment gives none (the SDK's own default is `unknown_service:node`). */
export const DEFAULT_SERVICE_NAME = 'agate';

export interface Tracing {
  /** Exports what is still buffered and stops the SDK; resolves once done. */
  shutdown(): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Which of the variables are set (non-empty): tracing is on when any is. */
export function tracingVariables(env: Env): string[] {
  if (/^true$/i.test(env.OTEL_SDK_DISABLED?.trim() ?? '')) return [];
  if (env.OTEL_TRACES_EXPORTER?.trim() === 'none') return [];
  return OTEL_VARIABLES.filter((name) => (env[name]?.trim() ?? '') !== '');
}

/**
 * Starts the SDK when the environment asks for tracing; undefined when it does not, or when the
 * SDK is not installed (then one warning on `warn` says how to install it, and the run goes on
 * untraced: tracing is never a reason for a run to fail). `env` is the process's environment,
 * which the SDK reads itself.
 */
export async function startTracing(
  env: Env,
  warn: (text: string) => void,
): Promise<Tracing | undefined> {
  const set = tracingVariables(env);
  if (set.length === 0) return undefined;
  let NodeSDK: typeof import('@opentelemetry/sdk-node').NodeSDK;
  try {
    ({ NodeSDK } = await import('@opentelemetry/sdk-node'));
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    warn(
      `agate: warning: ${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set, but ` +
        '@opentelemetry/sdk-node is not installed beside @agate/cli, so this run is not traced. ' +
        'Install it in your project: npm install @opentelemetry/sdk-node\n',
    );
    return undefined;
  }
  const named =
    (env.OTEL_SERVICE_NAME?.trim() ?? '') !== '' ||
    /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    ...(named ? {} : { serviceName: DEFAULT_SERVICE_NAME }),
    // Agate makes spans only: no metric or log exporters (the SDK would start OTLP ones by
    // default and send to localhost:4318 every minute).
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
