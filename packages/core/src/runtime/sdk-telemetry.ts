import { tracingChannel } from 'node:diagnostics_channel';
import { AI_SDK_TELEMETRY_TRACING_CHANNEL } from 'ai';

/**
 * The AI SDK's telemetry plumbing runs on every call even when nobody listens: each call copies
 * and redacts its event (tools included) for the tracing channel and the integrations. Agate
 * makes one call per tick, so that fixed cost is paid per tick. When no integration is
 * registered (`registerTelemetry`) and nothing subscribes to the tracing channel, the call is
 * made with telemetry off; the moment either exists, the SDK's default applies again.
 */
const channel = tracingChannel(AI_SDK_TELEMETRY_TRACING_CHANNEL);
const OFF = { telemetry: { isEnabled: false } } as const;
/** The setting that turns the AI SDK's telemetry off (compared by identity). */
export const SDK_TELEMETRY_OFF = OFF;
const DEFAULT = {} as const;

export function sdkTelemetrySetting(): typeof OFF | typeof DEFAULT {
  const integrations = (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: readonly unknown[] })
    .AI_SDK_TELEMETRY_INTEGRATIONS;
  if ((integrations?.length ?? 0) > 0 || channel.hasSubscribers) return DEFAULT;
  return OFF;
}
