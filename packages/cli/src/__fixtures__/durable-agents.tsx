import { System, Timeline, User } from '@agate/core';
import type { DurableAgents } from '@agate/dbos';
import { scriptedModel } from '@agate/testing';

/** An agents file for `agate worker`: one agent that answers at once. */
export const agents: DurableAgents = {
  greeter: {
    element: (input: { name: string }) => (
      <>
        <System>Greet the user.</System>
        <User>My name is {input.name}.</User>
        <Timeline />
      </>
    ),
    options: { model: scriptedModel(['Hello!'], { whenExhausted: 'repeat-last' }) },
  },
};
