/**
 * The agent the CLI's tests run: one tool that works, one that always fails, and a gate that
 * refuses to let the agent finish before it saved a note.
 */
import { Gate, System, Timeline, Tool, User } from '@agate/core';
import { useRef } from 'react';
import { z } from 'zod';

export default function NotesAgent() {
  // The session's notes, not the module's: files sharing a module graph run this agent too.
  const saved = useRef<string[]>([]).current;
  return (
    <>
      <System>You keep notes. Save the note before you finish.</System>
      <User>Save a note that says hello.</User>
      <Timeline />
      <Tool
        name="save_note"
        description="Save a note"
        input={z.object({ text: z.string() })}
        execute={({ text }) => {
          saved.push(text);
          return `Saved note ${saved.length}: ${text}`;
        }}
      />
      <Tool
        name="flaky"
        description="A tool that always fails"
        input={z.object({})}
        execute={() => {
          throw new Error('the disk is full');
        }}
      />
      <Gate
        name="note-saved"
        description="A note must be saved before finishing"
        instructions="NOTE NOT SAVED: call save_note with the note, then finish."
        initial="deferred"
        clearableBy="host"
        clearWhen={(tick) => tick.toolResults.some((r) => r.toolName === 'save_note' && !r.isError)}
        activateWhen={() => false}
      />
    </>
  );
}

export const options = { maxTicks: 10 };
