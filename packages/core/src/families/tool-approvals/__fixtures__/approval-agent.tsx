import { type ScriptedModel, scriptedModel } from '@agate/testing';
import { z } from 'zod';
import { System, Timeline, Tool, User } from '../../../index.js';

/** What the tools actually did, in order (a held or denied call never gets here). */
export const executed: string[] = [];

/** An agent with a safe tool and two that need a person's approval (one per call, by input). */
export function ApprovalAgent() {
  return (
    <>
      <System>You manage a database.</System>
      <User>Tidy the database.</User>
      <Timeline />
      <Tool
        name="count_rows"
        description="Counts rows"
        input={z.object({ table: z.string() })}
        execute={({ table }) => {
          executed.push(`count_rows:${table}`);
          return { table, rows: 3 };
        }}
      />
      <Tool
        name="drop_table"
        description="Drops a table"
        input={z.object({ table: z.string() })}
        needsApproval
        execute={({ table }) => {
          executed.push(`drop_table:${table}`);
          return `dropped ${table}`;
        }}
      />
      <Tool
        name="pay"
        description="Pays an amount"
        input={z.object({ amount: z.number() })}
        needsApproval={({ amount }) => amount > 100}
        execute={({ amount }) => {
          executed.push(`pay:${amount}`);
          return `paid ${amount}`;
        }}
      />
    </>
  );
}

/**
 * One response with a safe call, a held call and a small payment; then a final answer. A
 * resumed session (another process) starts at the final answer.
 */
export function approvalModel(resumed = false): ScriptedModel {
  if (resumed) return scriptedModel(['Done.']);
  return scriptedModel([
    {
      toolCalls: [
        { toolCallId: 'c-count', toolName: 'count_rows', input: { table: 'users' } },
        { toolCallId: 'c-drop', toolName: 'drop_table', input: { table: 'users' } },
        { toolCallId: 'c-pay', toolName: 'pay', input: { amount: 5 } },
      ],
    },
    'Done.',
  ]);
}
