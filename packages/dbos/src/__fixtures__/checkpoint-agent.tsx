import { Checkpoint, System, Timeline, User } from '@agate/core';
import { scriptedModel } from '@agate/testing';
import type { DurableAgent } from '../index.js';

/** Submits checkpoint T-1 on its first tick; once a tool result is back, says it is done. */
export function checkpointAgent(): DurableAgent {
  const model = scriptedModel(
    [
      ({ options }) =>
        options.prompt.some((m) => m.role === 'tool')
          ? 'Done.'
          : {
              toolCalls: [
                { toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'The plan.' } },
              ],
            },
    ],
    { whenExhausted: 'repeat-last' },
  );
  return {
    element: () => (
      <>
        <System>Write a plan, then submit it for review.</System>
        <User>Plan the work.</User>
        <Timeline />
        <Checkpoint id="T-1" task="Write the plan." budget={4} />
      </>
    ),
    options: { model, maxTicks: 10 },
  };
}
