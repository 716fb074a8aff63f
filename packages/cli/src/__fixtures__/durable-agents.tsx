import { System, Timeline, User } from '@agate/core';
import type { DurableAgents } from '@agate/dbos';
import { scriptedModel } from '@agate/testing';
import ApprovalAgent from './approval-agent.js';

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
    element: () => <ApprovalAgent />,
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
