import { appendFileSync } from 'node:fs';
import { System, Timeline, Tool, User } from '@agate/core';
import type { DurableAgents } from '@agate/dbos';
import { scriptedModel } from '@agate/testing';
import { z } from 'zod';

/** Ticks of a run that call the tool; one more tick answers. */
export const TOOL_TICKS = 10;
/** Ticks of a run, the answering one included. */
export const TICKS_PER_RUN = TOOL_TICKS + 1;
/** The model's latency per call. */
export const MODEL_MS = 5;

/**
 * The scale bench's agent: ten ticks of a 5 ms model call and one tool call, then an eleventh
 * that answers. The model answers from the request alone (how many results the timeline holds),
 * so a run taken over by another worker gets the same answers; the tool appends its call id to
 * `toolLog` (one file per worker process), so repeats after a kill can be counted.
 */
export function scaleAgents(toolLog: string): DurableAgents {
  const model = scriptedModel(
    [
      ({ options }) => {
        const user = options.prompt.find((m) => m.role === 'user');
        const text = user?.content.map((p) => (p.type === 'text' ? p.text : '')).join('') ?? '';
        const run = /run ([\w-]+)/.exec(text)?.[1] ?? 'unknown';
        const done = options.prompt.filter((m) => m.role === 'tool').length;
        if (done >= TOOL_TICKS) return { text: `Recorded ${done} readings.`, delayMs: MODEL_MS };
        return {
          toolCalls: [
            { toolName: 'record', toolCallId: `${run}-${done + 1}`, input: { reading: done + 1 } },
          ],
          delayMs: MODEL_MS,
        };
      },
    ],
    { whenExhausted: 'repeat-last' },
  );
  return {
    recorder: {
      element: (input: { run: string }) => (
        <>
          <System>Record the readings, one a tick, then say how many you recorded.</System>
          <User>This is run {input.run}.</User>
          <Timeline />
          <Tool
            name="record"
            description="Records one reading."
            input={z.object({ reading: z.number() })}
            execute={({ reading }, { toolCallId }) => {
              appendFileSync(toolLog, `${toolCallId}\n`);
              return `reading ${reading} recorded`;
            }}
          />
        </>
      ),
      options: { model, maxTicks: TICKS_PER_RUN + 2 },
    },
  };
}
