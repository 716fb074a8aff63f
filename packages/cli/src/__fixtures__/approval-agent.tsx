/** An agent whose `drop_table` calls need a person's approval, for the CLI's tests. */
import { System, Timeline, Tool, User } from '@agate/core';
import { z } from 'zod';

export const dropped: string[] = [];

export default function ApprovalAgent() {
  return (
    <>
      <System>You manage a database.</System>
      <User>Drop the old tables.</User>
      <Timeline />
      <Tool
        name="drop_table"
        description="Drops a table"
        input={z.object({ table: z.string() })}
        needsApproval
        execute={({ table }) => {
          dropped.push(table);
          return `dropped ${table}`;
        }}
      />
    </>
  );
}
