import { type ScriptedTurn, scriptedModel } from '@agate/testing';
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import type { ReactNode } from 'react';
import { expect } from 'vitest';
import { z } from 'zod';
import {
  type AgateEvent,
  type Session,
  type SessionState,
  System,
  Timeline,
  Tool,
  User,
} from '../index.js';

/**
 * The agent every fault case runs: a task, the timeline and a `step` tool that records what it
 * did. A case adds the misbehaving part (`extra`): a tool, a gate, a ContinueGate.
 */
export function FaultAgent(props: { extra?: ReactNode }) {
  return (
    <>
      <System>You work in steps.</System>
      <User>Do the work, one step at a time.</User>
      <Timeline />
      <Tool
        name="step"
        description="Do step n"
        input={z.object({ n: z.number() })}
        execute={({ n }) => `did step ${n}`}
      />
      {props.extra}
    </>
  );
}

/** A reply that calls `toolName` (default `step`) with `input`. */
export const call = (input: unknown = {}, toolName = 'step'): ScriptedTurn => ({
  toolCalls: [{ toolName, input }],
});

export const step = (n: number): ScriptedTurn => call({ n });

/** How the model misbehaves on one call: it gets the call's options and answers the stream. */
export type ModelFault = (
  options: LanguageModelV4CallOptions,
) => Promise<{ stream: ReadableStream<LanguageModelV4StreamPart> }>;

/**
 * A model that answers from `script` (the healthy calls, in order) except on the calls listed
 * in `faults` (by 0-based call index), which misbehave instead. The healthy script goes on
 * where it left off after a fault, so `run()` again continues.
 */
/** A streaming model (faults are stream-level): sessions using it pass `streaming: true`. */
export function faultyModel(script: readonly ScriptedTurn[], faults: Record<number, ModelFault>) {
  const healthy = scriptedModel(script);
  let calls = 0;
  return new MockLanguageModelV4({
    provider: 'agate-faulty',
    modelId: 'faulty',
    doStream: async (options) => {
      const fault = faults[calls++];
      if (fault !== undefined) return fault(options);
      return healthy.doStream(options);
    },
  });
}

/** A stream that sends `parts`, then either ends or fails with `error`. */
export function streamOf(
  parts: LanguageModelV4StreamPart[],
  error?: unknown,
): ReadableStream<LanguageModelV4StreamPart> {
  let next = 0;
  // One part per pull: an error enqueued with the parts would discard the ones not yet read.
  return new ReadableStream({
    pull(controller) {
      const part = parts[next++];
      if (part !== undefined) controller.enqueue(part);
      else if (error !== undefined) controller.error(error);
      else controller.close();
    },
  });
}

/** The opening of a streamed answer: some text the model got out before the fault. */
export const partialText = (text: string): LanguageModelV4StreamPart[] => [
  { type: 'stream-start', warnings: [] },
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: text },
];

/**
 * Watches a session: the state at the start of every tick (the state after the tick before it
 * completed) and every event, so a case can check that a failed tick left no trace.
 */
export function watch(session: Session) {
  const atStart = new Map<number, SessionState>();
  const events: AgateEvent[] = [];
  session.subscribe((event) => {
    events.push(event);
    if (event.type === 'tick:start') atStart.set(event.tick, session.state);
  });
  const ofType = <T extends AgateEvent['type']>(type: T) =>
    events.filter((e): e is Extract<AgateEvent, { type: T }> => e.type === type);
  return {
    events,
    ofType,
    /** Asserts the session holds exactly the state after tick `tick` completed. */
    expectStateAfterTick(tick: number) {
      expect(session.state.tick).toBe(tick);
      const completed = atStart.get(tick + 1);
      expect(completed, `tick ${tick + 1} never started`).toBeDefined();
      expect(withoutRunStatus(session.state)).toEqual(withoutRunStatus(completed as SessionState));
    },
  };
}

/** `status` and `reason` say how the last run ended; everything else is the ticks' work. */
function withoutRunStatus(state: SessionState) {
  const { status: _status, reason: _reason, ...rest } = state;
  return rest;
}

/** The tool results the model was sent, as text, in order. */
export function toolOutputs(session: Session): unknown[] {
  return session.state.timeline.flatMap((m) =>
    m.role === 'tool' && Array.isArray(m.content)
      ? m.content.flatMap((p) =>
          p.type === 'tool-result' && 'value' in p.output ? [p.output.value] : [],
        )
      : [],
  );
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
