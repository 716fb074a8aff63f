import { appendFileSync } from 'node:fs';
import { System, Timeline, Tool, User } from '@agate/core';
import type { DurableAgents } from '@agate/dbos';
import { scriptedModel } from '@agate/testing';
import { z } from 'zod';

/** Tool calls a `slow` run makes, each taking `SLOW_CALL_MS`. */
export const SLOW_CALLS = 3;
const SLOW_CALL_MS = 800;

/**
 * An agents file for the `agate worker` bin tests. `slow` calls `step` three times, each call
 * taking 800 ms and appending `start|end <callId> <pid>` to the file `AGATE_TEST_LOG` names;
 * its model answers from the request alone (how many results the timeline holds), so a run
 * taken over by another process gets the same answers. `greeter` answers at once.
 */
export const agents: DurableAgents = {
  slow: {
    element: (input: { run: string }) => (
      <>
        <System>Take the steps one at a time.</System>
        <User>Run {input.run}.</User>
        <Timeline />
        <Tool
          name="step"
          description="Takes one step."
          input={z.object({ n: z.number() })}
          execute={async ({ n }, { toolCallId }) => {
            const log = (what: string) =>
              appendFileSync(
                process.env.AGATE_TEST_LOG as string,
                `${what} ${toolCallId} ${process.pid}\n`,
              );
            log('start');
            await new Promise((resolve) => setTimeout(resolve, SLOW_CALL_MS));
            log('end');
            return `step ${n} taken`;
          }}
        />
      </>
    ),
    options: {
      model: scriptedModel(
        [
          ({ options }) => {
            const done = options.prompt.filter((m) => m.role === 'tool').length;
            if (done >= SLOW_CALLS) return 'All steps taken.';
            return {
              toolCalls: [
                { toolName: 'step', toolCallId: `step-${done + 1}`, input: { n: done + 1 } },
              ],
            };
          },
        ],
        { whenExhausted: 'repeat-last' },
      ),
      maxTicks: 10,
    },
  },
  greeter: {
    element: () => (
      <>
        <System>Greet the user.</System>
        <User>Hello.</User>
        <Timeline />
      </>
    ),
    options: { model: scriptedModel(['Hello!'], { whenExhausted: 'repeat-last' }) },
  },
};
