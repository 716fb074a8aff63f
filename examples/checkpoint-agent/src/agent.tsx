import { Checkpoint, System, Timeline, User } from '@agate/core';
import { FileTools } from '@agate/example-kit';
import { workspace } from './workspace.js';

export const TASKS = {
  'T-1': 'Write greet(name) in greet.js: it returns "Hello, <name>!".',
  'T-2': 'Write greet.test.js: a node:test test for greet().',
} as const;

/**
 * Two tasks, each behind a checkpoint: the agent submits T-1 and is held (its tools refused,
 * no model call) until a supervisor approves; only then does T-2 open.
 */
export function CheckpointAgent(props: { root: string }) {
  return (
    <>
      <System>
        You extend a small JavaScript project, one task at a time. When a task is done, submit its
        checkpoint with a short summary; a supervisor reviews each one before you go on.
      </System>
      <User>Add a greet() function and a test for it.</User>
      <Timeline />
      <FileTools root={props.root} workspace={workspace} />
      <Checkpoint id="T-1" task={TASKS['T-1']} budget={6} />
      <Checkpoint id="T-2" task={TASKS['T-2']} budget={6} />
    </>
  );
}
