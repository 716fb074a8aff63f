/**
 * An agent that ends in a checked object (`<Output>`): a review verdict. Its gate refuses a
 * final answer given before the change was read, so a run shows a refused `final_answer`, then
 * an accepted one.
 */
import { Gate, Output, System, Timeline, Tool, User } from '@agate/core';
import { z } from 'zod';

export const Verdict = z.object({
  verdict: z.enum(['approve', 'request-changes']),
  issues: z.array(z.string()),
});

export default function VerdictAgent() {
  return (
    <>
      <System>You review a change. Read it before you give your verdict.</System>
      <User>Review the change to math.js.</User>
      <Timeline />
      <Tool
        name="read_change"
        description="Read the change"
        input={z.object({})}
        execute={() => '- return a / b;\n+ return b === 0 ? 0 : a / b;'}
      />
      <Gate
        name="change-read"
        description="The change must be read before the verdict"
        instructions="NOT READ: call read_change, then give your verdict."
        initial="deferred"
        clearableBy="host"
        clearWhen={(tick) => tick.toolResults.some((r) => r.toolName === 'read_change')}
        activateWhen={() => false}
      />
      <Output schema={Verdict} />
    </>
  );
}
