import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { System, Timeline, Tool, User } from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { z } from 'zod';
import type { DurableAgent } from '../index.js';

/**
 * Calls `drop_table` (which needs a person's approval) on its first tick; once a tool result is
 * back, says it is done. Each executed drop appends a line to `<dir>/dropped.log`.
 */
export function approvalAgent(dir: string): DurableAgent {
  const model = scriptedModel(
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
  );
  return {
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
          execute={({ table }, { toolCallId }) => {
            appendFileSync(join(dir, 'dropped.log'), `${toolCallId} ${table}\n`);
            return `dropped ${table}`;
          }}
        />
      </>
    ),
    options: { model, maxTicks: 10 },
  };
}
