/** A checkpointed agent for the CLI's tests: one task, one tool, a supervisor in between. */
import { Checkpoint, System, Timeline, Tool, User } from '@agate/core';
import { z } from 'zod';

export default function CheckpointAgent() {
  return (
    <>
      <System>You save notes. Submit the checkpoint when the first note is saved.</System>
      <User>Save a note that says hello, submit T-1, then save one that says bye.</User>
      <Timeline />
      <Tool
        name="save_note"
        description="Save a note"
        input={z.object({ text: z.string() })}
        execute={({ text }) => `Saved: ${text}`}
      />
      <Tool
        name="read_env"
        description="Read an environment variable (what a shell tool would inherit)"
        input={z.object({ name: z.string() })}
        execute={({ name }) => process.env[name] ?? '(not set)'}
      />
      <Checkpoint id="T-1" task="Save the first note" />
    </>
  );
}

export const options = { maxTicks: 6 };
