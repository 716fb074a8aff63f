/**
 * The agent of the version-2 ledger fixture (`v2-both-ledgers.json`): a `<Checkpoint>` and two
 * tools held for approval. The snapshot was written once with the code of version 2 (commit
 * 291dd33, when tool-call decisions shared the checkpoint ledger), by the script kept beside it
 * (`make-v2-snapshot.tsx`, run against that commit): the checkpoint submitted and approved, then
 * `pay` and `drop` held and `pay` approved, every entry signed with `V2_FIXTURE_KEY`.
 * `../v2-ledgers.test.tsx` restores it with today's code and goes on.
 */
import { z } from 'zod';
import { Checkpoint, System, Timeline, Tool, User } from '../../index.js';

/** The shared secret the fixture's ledger is signed with (a test key, not a secret). */
export const V2_FIXTURE_KEY = 'v2-fixture-approval-key';

/** What the tools did, in order (the test empties it). */
export const v2Effects: string[] = [];

export function V2Agent() {
  return (
    <>
      <System>Pay the invoice, then clean up.</System>
      <User>Pay invoice 7 and drop the old logs table.</User>
      <Timeline />
      <Checkpoint id="T-1" task="Say what you will pay" />
      <Tool
        name="pay"
        description="Pay an amount."
        input={z.object({ cents: z.number() })}
        needsApproval
        execute={({ cents }) => {
          v2Effects.push(`paid ${cents}`);
          return `paid ${cents}`;
        }}
      />
      <Tool
        name="drop"
        description="Drop a table."
        input={z.object({ table: z.string() })}
        needsApproval
        execute={({ table }) => {
          v2Effects.push(`dropped ${table}`);
          return `dropped ${table}`;
        }}
      />
    </>
  );
}
