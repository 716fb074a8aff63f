import { tracingChannel } from 'node:diagnostics_channel';
import { scriptedModel } from '@agate/testing';
import { AI_SDK_TELEMETRY_TRACING_CHANNEL, registerTelemetry } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { run, Timeline, User } from '../index.js';
import { sdkTelemetrySetting } from './sdk-telemetry.js';

type Global = { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown[] };
const g = globalThis as Global;

afterEach(() => {
  delete g.AI_SDK_TELEMETRY_INTEGRATIONS;
});

const agent = (
  <>
    <User>Say hello.</User>
    <Timeline />
  </>
);

describe('AI SDK telemetry on model calls', () => {
  it('is off while nobody listens, so its per-call plumbing is not paid every tick', () => {
    expect(sdkTelemetrySetting()).toEqual({ telemetry: { isEnabled: false } });
  });

  it('follows the SDK default as soon as an integration is registered, and the integration sees the call', async () => {
    const seen: string[] = [];
    registerTelemetry({
      onStart: () => {
        seen.push('start');
      },
      onEnd: () => {
        seen.push('end');
      },
    });
    expect(sdkTelemetrySetting()).toEqual({});
    const result = await run(agent, { model: scriptedModel([{ text: 'Hello.' }]) });
    expect(result.status).toBe('completed');
    expect(seen).toEqual(['start', 'end']);
  });

  it('follows the SDK default while something subscribes to its tracing channel', async () => {
    const channel = tracingChannel(AI_SDK_TELEMETRY_TRACING_CHANNEL);
    const types: string[] = [];
    const handlers = {
      start: (message: unknown) => {
        types.push((message as { type: string }).type);
      },
      end: () => {},
      asyncStart: () => {},
      asyncEnd: () => {},
      error: () => {},
    };
    channel.subscribe(handlers);
    try {
      expect(sdkTelemetrySetting()).toEqual({});
      await run(agent, { model: scriptedModel([{ text: 'Hello.' }]) });
      expect(types.length).toBeGreaterThan(0);
    } finally {
      channel.unsubscribe(handlers);
    }
    expect(sdkTelemetrySetting()).toEqual({ telemetry: { isEnabled: false } });
  });
});
