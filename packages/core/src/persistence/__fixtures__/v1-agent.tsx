/**
 * The agent of the version-1 fixture snapshots: a gate, a knob, `<Todos requireComplete>`,
 * `<PhaseGates mode="block">`, a `<ContinueGate>` and a `<Checkpoint>`. The snapshots in this
 * folder were written once with the code of that time (snapshot version 1; the one-off script
 * that did it is in commit dcf0b23, `git show dcf0b23:packages/core/src/persistence/__fixtures__/make-v1-snapshots.tsx`);
 * `../v1-snapshot.test.tsx` restores them with today's code and goes on.
 */
import type { ScriptedTurn } from '@agate/testing';
import { z } from 'zod';
import {
  Checkpoint,
  ContinueGate,
  Gate,
  Knob,
  PhaseGates,
  System,
  Timeline,
  Todos,
  Tool,
  User,
} from '../../index.js';

export function V1Agent() {
  return (
    <>
      <System>Fix the bug, then verify it.</System>
      <User>Fix add() in math.js.</User>
      <Timeline />
      <Tool
        name="read_file"
        description="Read a file."
        input={z.object({ path: z.string() })}
        category="read"
        evidence={{ kind: 'read', paths: (input: { path: string }) => [input.path] }}
        execute={({ path }) => `contents of ${path}`}
      />
      <Tool
        name="edit_file"
        description="Edit a file."
        input={z.object({ path: z.string(), content: z.string() })}
        category="patch"
        writes={(input) => [input.path]}
        evidence={{ kind: 'edit', paths: (input: { path: string }) => [input.path] }}
        execute={({ path }) => `edited ${path}`}
      />
      <Tool
        name="run_tests"
        description="Run the tests."
        input={z.object({})}
        category="verify"
        evidence={{ kind: 'command', command: () => 'npm test' }}
        execute={() => 'ok: 3 passed'}
      />
      <Knob
        name="verbosity"
        initial="short"
        options={['short', 'long']}
        description="How much to say."
      />
      <Gate
        name="verification"
        description="The change is verified."
        instructions="Run the tests after editing, then clear this gate with set_knob."
        activateWhen={(tick) => tick.toolCalls.some((c) => c.toolName === 'edit_file')}
      />
      <Todos requireComplete />
      <PhaseGates mode="block" />
      <ContinueGate
        maxConsecutiveSteps={40}
        maxBudgetSlopePerStep={10}
        budget={{ toolCalls: 200 }}
      />
      <Checkpoint id="fix" task="Fix add() in math.js and say what changed" />
    </>
  );
}

const PLAN = [
  { content: 'Fix add() in math.js', activeForm: 'Fixing add()', status: 'in_progress' },
  { content: 'Run the tests', activeForm: 'Running the tests', status: 'pending' },
];

/** Up to the pending checkpoint (the run ends awaiting-approval). */
export const TURNS_BEFORE: ScriptedTurn[] = [
  { toolCalls: [{ toolName: 'todo_write', input: { todos: PLAN } }] },
  { toolCalls: [{ toolName: 'read_file', input: { path: 'math.js' } }] },
  { toolCalls: [{ toolName: 'edit_file', input: { path: 'math.js', content: 'a + b' } }] },
  { toolCalls: [{ toolName: 'submit_checkpoint', input: { id: 'fix', summary: 'add() fixed' } }] },
];

const DONE = PLAN.map((item) => ({ ...item, status: 'completed' }));

/** After the checkpoint is approved: verify, sign both steps off, clear the gate, finish. */
export const TURNS_AFTER: ScriptedTurn[] = [
  { toolCalls: [{ toolName: 'run_tests', input: {} }] },
  {
    toolCalls: [
      { toolName: 'complete_step', input: { step: 1, evidence: { verification: 'npm test' } } },
    ],
  },
  {
    toolCalls: [
      { toolName: 'complete_step', input: { step: 2, evidence: { verification: 'npm test' } } },
    ],
  },
  { toolCalls: [{ toolName: 'todo_write', input: { todos: DONE } }] },
  { toolCalls: [{ toolName: 'set_knob', input: { name: 'verification', value: 'inactive' } }] },
  'add() is fixed and the tests pass.',
];
