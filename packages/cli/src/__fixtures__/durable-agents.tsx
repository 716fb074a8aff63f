import { System, Timeline, Tool, User } from '@agate/core';
import type { DurableAgents } from '@agate/dbos';
import { scriptedModel } from '@agate/testing';
import { z } from 'zod';

/**
 * An agents file for `agate worker`: one agent that answers at once, one whose `drop_table` call
 * waits for a person's approval.
 */
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
  dropper: {
    element: () => (
      <>
        <System>You manage a database.</System>
        <User>Drop the logs table.</User>
        <Timeline />
        <Tool
          name="drop_table"
          description="Drops a table"
          input={z.object({ table: z.string() })}
          needsApproval
          execute={({ table }) => `dropped ${table}`}
        />
      </>
    ),
    options: {
      model: scriptedModel(
        [
          ({ options }) =>
            options.prompt.some((m) => m.role === 'tool')
              ? 'Dropped.'
              : {
                  toolCalls: [
                    { toolCallId: 'c-drop', toolName: 'drop_table', input: { table: 'logs' } },
                  ],
                },
        ],
        { whenExhausted: 'repeat-last' },
      ),
    },
  },
};
