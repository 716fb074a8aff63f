import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ScriptedModel, type ScriptedTurn, scriptedModel } from '@agate/testing';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { APPROVAL_KEY_ENV } from '../../approvals/approval-signing.js';
import {
  type AgateEvent,
  Checkpoint,
  CheckpointNotPendingError,
  ContinueGate,
  createMemoryStore,
  Gate,
  type SessionOptions,
  System,
  Timeline,
  Tool,
  UnknownCheckpointError,
  User,
} from '../../index.js';
import { createSession } from '../../runtime/session.js';

// ---- the agent under test --------------------------------------------------------------

/** What the tools actually did (an intercepted call never gets here). */
let executed: string[] = [];

function Agent(props: { children?: ReactNode; root?: string }) {
  return (
    <>
      <System>You work through tasks and submit each checkpoint when it is done.</System>
      <User>Do the tasks.</User>
      <Timeline />
      <Tool
        name="write_note"
        description="Write a note."
        input={z.object({ n: z.number() })}
        execute={({ n }) => {
          executed.push(`write_note ${n}`);
          return `wrote ${n}`;
        }}
      />
      <Tool
        name="read_notes"
        description="Read the notes."
        input={z.object({})}
        execute={() => {
          executed.push('read_notes');
          return 'notes';
        }}
      />
      {props.root !== undefined && (
        // Writes through a "shell": declares no `writes`, so the trigger must still see it.
        <Tool
          name="shell_write"
          description="Write a file through a shell."
          input={z.object({ path: z.string(), content: z.string() })}
          execute={async ({ path, content }) => {
            executed.push(`shell_write ${path}`);
            await writeFile(join(props.root!, path), content);
            return 'ok';
          }}
        />
      )}
      {props.children}
    </>
  );
}

const note = (n: number) => ({ toolName: 'write_note', input: { n } });
const submit = (id: string, summary = `${id} done`) => ({
  toolName: 'submit_checkpoint',
  input: { id, summary },
});

function session(element: ReactNode, turns: ScriptedTurn[], options: Partial<SessionOptions> = {}) {
  const model = scriptedModel(turns);
  const events: AgateEvent[] = [];
  const s = createSession(element, {
    model,
    store: createMemoryStore(),
    onEvent: (e) => events.push(e),
    ...options,
  });
  return { session: s, model, events };
}

/** Everything the model was sent on call `i` (system, messages, ephemeral), as text. */
const requestText = (model: ScriptedModel, i: number) => JSON.stringify(model.calls[i]?.prompt);

const ofType = <T extends AgateEvent['type']>(events: AgateEvent[], type: T) =>
  events.filter((e): e is Extract<AgateEvent, { type: T }> => e.type === type);

beforeEach(() => {
  executed = [];
  vi.stubEnv(APPROVAL_KEY_ENV, '');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

// ---- submit tool ------------------------------------------------------------------------

describe('submit_checkpoint (approach A)', () => {
  it('is offered while a checkpoint is open, with its task in the request', async () => {
    const { session: s, model } = session(
      <Agent>
        <Checkpoint id="T-1" task="Implement the auth module" />
      </Agent>,
      ['Nothing to do.'],
    );
    await s.run();
    expect(model.calls[0]?.tools?.map((t) => t.name)).toContain('submit_checkpoint');
    expect(requestText(model, 0)).toContain('Task: Implement the auth module');
    expect(s.context?.ephemeral.find((b) => b.source === 'checkpoint:T-1')?.text).toContain(
      'Checkpoint T-1 is open (1 of 1)',
    );
  });

  it('makes the open checkpoint pending and ends the run awaiting-approval', async () => {
    const { session: s, events } = session(
      <Agent>
        <Checkpoint id="T-1" task="Write note 1" />
      </Agent>,
      [{ toolCalls: [note(1)] }, { toolCalls: [submit('T-1', 'note 1 written')] }, 'unused'],
    );
    const result = await s.run();
    expect(result.status).toBe('awaiting-approval');
    expect(result.ticks).toBe(2);
    expect(result.reason).toContain('Checkpoint "T-1" is awaiting supervisor approval');
    expect(result.reason).toContain('session.approve("T-1"');
    expect(result.reason).toContain(`agate approve ${s.id} T-1 --by NAME`);
    expect(result.checkpoints).toEqual({ 'T-1': 'pending' });
    expect(ofType(events, 'checkpoint:submitted')).toEqual([
      { type: 'checkpoint:submitted', path: [], tick: 2, id: 'T-1', summary: 'note 1 written' },
    ]);
    expect(ofType(events, 'checkpoint:pending')).toEqual([
      expect.objectContaining({ tick: 2, id: 'T-1', cause: 'submit' }),
    ]);
    // The tick with the submit is committed: its calls and results are in the timeline.
    expect(s.state.tick).toBe(2);
    expect(s.state.status).toBe('awaiting-approval');
  });

  it('refuses another id with a tool error naming the open checkpoint', async () => {
    const { session: s, model } = session(
      <Agent>
        <Checkpoint id="T-1" task="Write note 1" />
        <Checkpoint id="T-2" task="Write note 2" />
      </Agent>,
      [{ toolCalls: [submit('T-2')] }, { toolCalls: [note(1)] }],
    );
    const result = await s.run({ maxTicks: 2 });
    expect(result.status).toBe('max-ticks');
    const toolMessage = JSON.stringify(result.timeline);
    expect(toolMessage).toContain('is not the open checkpoint. The open checkpoint is T-1');
    expect(requestText(model, 1)).toContain('The open checkpoint is T-1 (Write note 1)');
    expect(s.state.guards.checkpoints.records['T-1']?.state).toBe('unlocked');
    expect(s.state.guards.checkpoints.ledger).toEqual([]);
  });

  it('finishing while a checkpoint is open is crossing it: the run waits for the supervisor', async () => {
    const { session: s, model } = session(
      <Agent>
        <Checkpoint id="T-1" task="Write note 1" />
      </Agent>,
      [{ toolCalls: [note(1)] }, 'All done.', 'Done after approval.'],
    );
    const result = await s.run();
    expect(result.status).toBe('awaiting-approval');
    expect(result.reason).toContain('T-1');
    expect(s.state.guards.checkpoints.records['T-1']).toMatchObject({
      state: 'pending',
      cause: 'finish',
    });
    expect(s.state.guards.checkpoints.ledger.map((e) => e.kind)).toEqual(['finish']);
    s.approve('T-1', { by: 'ana' });
    expect((await s.run()).status).toBe('completed');
    expect(model.calls).toHaveLength(3);
  });
});

// ---- tool intercept ---------------------------------------------------------------------

describe('tool intercept (approach B)', () => {
  it('a refused call is no work: a gate activated by writes does not see it', async () => {
    const { session: s } = session(
      <Agent>
        <Checkpoint id="T-1" />
        <Gate
          name="verify"
          description="Check your notes"
          instructions="Read the notes back with read_notes, then clear this gate."
          activateWhen={(tick) => tick.toolCalls.some((c) => c.toolName === 'write_note')}
        />
      </Agent>,
      [{ toolCalls: [submit('T-1'), note(1)] }],
    );
    const result = await s.run();
    expect(result.status).toBe('awaiting-approval');
    expect(executed).toEqual([]);
    expect(result.gates).toEqual({ verify: 'inactive' });
    const refused = result.events.find(
      (e) => e.type === 'tool:result' && e.toolName === 'write_note',
    );
    expect(refused).toMatchObject({ isError: true, refusedBy: 'checkpoint' });
  });

  it('refuses every call after the submit in the same response; execute never runs', async () => {
    const { session: s, events } = session(
      <Agent>
        <Checkpoint id="T-1" />
      </Agent>,
      [{ toolCalls: [note(1), submit('T-1'), note(2), { toolName: 'read_notes', input: {} }] }],
    );
    const result = await s.run();
    expect(result.status).toBe('awaiting-approval');
    expect(executed).toEqual(['write_note 1']);
    const refused = ofType(events, 'tool:refused');
    expect(refused.map((e) => [e.toolName, e.by, e.message])).toEqual([
      ['write_note', 'checkpoint', 'Execution blocked. Supervisor must approve checkpoint T-1.'],
      ['read_notes', 'checkpoint', 'Execution blocked. Supervisor must approve checkpoint T-1.'],
    ]);
    const results = ofType(events, 'tool:result');
    expect(results.slice(2).map((r) => [r.output, r.isError])).toEqual([
      ['Execution blocked. Supervisor must approve checkpoint T-1.', true],
      ['Execution blocked. Supervisor must approve checkpoint T-1.', true],
    ]);
  });

  it('refuses only the tools in `guards`', async () => {
    const { session: s } = session(
      <Agent>
        <Checkpoint id="T-2" guards={['write_note']} />
      </Agent>,
      [{ toolCalls: [submit('T-2'), note(2), { toolName: 'read_notes', input: {} }] }],
    );
    await s.run();
    expect(executed).toEqual(['read_notes']);
  });

  it('records a second submit of the pending checkpoint instead of refusing it', async () => {
    const { session: s } = session(
      <Agent>
        <Checkpoint id="T-1" />
      </Agent>,
      [{ toolCalls: [submit('T-1', 'first'), submit('T-1', 'second')] }],
    );
    await s.run();
    expect(s.state.guards.checkpoints.ledger.map((e) => [e.kind, e.summary])).toEqual([
      ['submitted', 'first'],
      ['submitted', 'second'],
    ]);
  });
});

// ---- model cut-off ----------------------------------------------------------------------

describe('model cut-off (approach C)', () => {
  it('run() and tick() on a pending session make no model call', async () => {
    const {
      session: s,
      model,
      events,
    } = session(
      <Agent>
        <Checkpoint id="T-1" />
        <ContinueGate cooldownMs={0} />
      </Agent>,
      [{ toolCalls: [submit('T-1')] }, 'never sent'],
    );
    await s.run();
    expect(model.calls).toHaveLength(1);
    const again = await s.run();
    expect(again.status).toBe('awaiting-approval');
    expect(again.ticks).toBe(0);
    expect(await s.tick()).toEqual({
      done: true,
      status: 'awaiting-approval',
      reason: expect.stringContaining('"T-1"'),
    });
    expect(model.calls).toHaveLength(1);
    // The checkpoint is asked first: the ContinueGate never evaluates a cut-off tick.
    expect(ofType(events, 'continue:evaluated')).toHaveLength(1);
  });

  it('ends awaiting-approval even when the submit came on the last tick maxTicks allows', async () => {
    const { session: s } = session(
      <Agent>
        <Checkpoint id="T-1" />
      </Agent>,
      [{ toolCalls: [submit('T-1')] }],
    );
    expect((await s.run({ maxTicks: 1 })).status).toBe('awaiting-approval');
  });

  it('saves the session to its store when the run ends awaiting-approval', async () => {
    const store = createMemoryStore();
    const { session: s } = session(
      <Agent>
        <Checkpoint id="T-1" />
      </Agent>,
      [{ toolCalls: [submit('T-1')] }],
      { store, id: 'saved-at-checkpoint' },
    );
    await s.run();
    const saved = await store.load('saved-at-checkpoint');
    expect(saved?.label).toBe('awaiting-approval');
    expect(saved?.state).toMatchObject({
      status: 'awaiting-approval',
      guards: { checkpoints: { records: { 'T-1': { state: 'pending', cause: 'submit' } } } },
    });
  });
});

// ---- budget and file trigger ------------------------------------------------------------

describe('iteration budget', () => {
  it('makes the checkpoint pending when its ticks run out without a submit', async () => {
    const {
      session: s,
      events,
      model,
    } = session(
      <Agent>
        <Checkpoint id="T-1" budget={3} />
      </Agent>,
      [{ toolCalls: [note(1)] }, { toolCalls: [note(2)] }, { toolCalls: [note(3)] }, 'unused'],
    );
    const result = await s.run();
    expect(result.status).toBe('awaiting-approval');
    expect(result.ticks).toBe(3);
    expect(model.calls).toHaveLength(3);
    expect(result.reason).toContain('its budget of 3 ticks ran out without a submit');
    expect(requestText(model, 1)).toContain('Budget: 2 of 3 ticks left');
    expect(ofType(events, 'checkpoint:pending')).toEqual([
      expect.objectContaining({ id: 'T-1', cause: 'budget', tick: 3 }),
    ]);
    expect(result.checkpointLedger).toEqual([
      expect.objectContaining({ kind: 'budget', by: 'runtime', tick: 3 }),
    ]);
  });

  it('trips on a tick where the model tried to finish: the run waits instead of completing', async () => {
    const { session: s } = session(
      <Agent>
        <Checkpoint id="T-1" budget={1} />
      </Agent>,
      ['I am done.'],
    );
    const result = await s.run();
    expect(result.status).toBe('awaiting-approval');
    expect(s.state.guards.checkpoints.records['T-1']).toMatchObject({
      state: 'pending',
      cause: 'budget',
    });
  });

  it('counts from zero again after a rejection', async () => {
    const { session: s, model } = session(
      <Agent>
        <Checkpoint id="T-1" budget={2} />
      </Agent>,
      [{ toolCalls: [note(1)] }, { toolCalls: [note(2)] }, { toolCalls: [note(3)] }, 'x'],
    );
    await s.run();
    s.reject('T-1', { by: 'ana', feedback: 'write note 3 too' });
    expect(s.state.guards.checkpoints.records['T-1']?.ticks).toBe(0);
    const second = await s.run();
    expect(requestText(model, 2)).toContain('Budget: 2 of 2 ticks left');
    expect(second.ticks).toBe(2);
    expect(second.status).toBe('awaiting-approval');
  });
});

describe('file trigger', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'agate-checkpoint-trigger-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const trigger = () => (
    <Agent root={root}>
      <Checkpoint
        id="requirements"
        trigger={{ fileWritten: 'docs/requirements.md' }}
        workspace={root}
      />
    </Agent>
  );

  it('goes pending when a tool that declares no writes creates the file', async () => {
    const { session: s, events } = session(trigger(), [
      { toolCalls: [note(1)] },
      {
        toolCalls: [
          { toolName: 'shell_write', input: { path: 'docs/requirements.md', content: '# R' } },
          note(2),
        ],
      },
    ]);
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(root, 'docs'));
    const result = await s.run();
    expect(result.status).toBe('awaiting-approval');
    expect(result.reason).toContain('docs/requirements.md was written (by a shell_write call)');
    expect(executed).toEqual(['write_note 1', 'shell_write docs/requirements.md']);
    expect(ofType(events, 'checkpoint:pending')).toEqual([
      expect.objectContaining({ id: 'requirements', cause: 'file', tick: 2 }),
    ]);
    expect(ofType(events, 'tool:refused').map((e) => e.toolName)).toEqual(['write_note']);
  });

  it('goes pending when a tool that declares its writes writes the file', async () => {
    const { session: s } = session(
      <Agent>
        <Tool
          name="save_requirements"
          description="Save the requirements."
          input={z.object({ text: z.string() })}
          writes={() => ['requirements.md']}
          execute={async ({ text }) => {
            await writeFile(join(root, 'requirements.md'), text);
            return 'saved';
          }}
        />
        <Checkpoint
          id="requirements"
          trigger={{ fileWritten: 'requirements.md' }}
          workspace={root}
        />
      </Agent>,
      [{ toolCalls: [{ toolName: 'save_requirements', input: { text: 'R1' } }, note(1)] }],
    );
    const result = await s.run();
    expect(result.status).toBe('awaiting-approval');
    expect(result.reason).toContain('requirements.md was written (by a save_requirements call)');
    expect(executed).toEqual([]);
  });

  it('counts a change to a file that existed when the checkpoint opened, not a touch', async () => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(root, 'docs'));
    const file = join(root, 'docs/requirements.md');
    await writeFile(file, 'draft');
    const { session: s } = session(
      <Agent root={root}>
        <Tool
          name="touch"
          description="Touch the file."
          input={z.object({})}
          execute={async () => {
            const later = new Date(Date.now() + 5_000);
            await utimes(file, later, later);
            return 'touched';
          }}
        />
        <Checkpoint
          id="requirements"
          trigger={{ fileWritten: 'docs/requirements.md' }}
          workspace={root}
        />
      </Agent>,
      [
        { toolCalls: [{ toolName: 'touch', input: {} }] },
        {
          toolCalls: [
            { toolName: 'shell_write', input: { path: 'docs/requirements.md', content: 'final' } },
          ],
        },
      ],
    );
    const result = await s.run();
    expect(result.status).toBe('awaiting-approval');
    expect(result.ticks).toBe(2);
    expect(await readFile(file, 'utf8')).toBe('final');
  });
});

// ---- supervisor -------------------------------------------------------------------------

describe('supervisor', () => {
  const twoTasks = () => (
    <Agent>
      <Checkpoint id="T-1" task="Write note 1" />
      <Checkpoint id="T-2" task="Write note 2" />
    </Agent>
  );

  it('approve: the next run goes on, told T-1 was approved with the note; T-2 opens', async () => {
    const {
      session: s,
      model,
      events,
    } = session(twoTasks(), [
      { toolCalls: [note(1), submit('T-1')] },
      { toolCalls: [note(2)] },
      { toolCalls: [submit('T-2')] },
    ]);
    expect((await s.run()).status).toBe('awaiting-approval');
    const entry = s.approve('T-1', { by: 'ana', note: 'Good; keep notes short.' });
    expect(entry).toMatchObject({ kind: 'approved', by: 'ana', answers: 1 });
    expect(ofType(events, 'checkpoint:approved')).toEqual([
      {
        type: 'checkpoint:approved',
        path: [],
        tick: 1,
        id: 'T-1',
        by: 'ana',
        note: 'Good; keep notes short.',
      },
    ]);
    const result = await s.run();
    expect(result.status).toBe('awaiting-approval');
    const next = requestText(model, 1);
    expect(next).toContain(
      'Checkpoint T-1 was approved by ana. Note from the supervisor: Good; keep notes short.',
    );
    expect(next).toContain('Checkpoint T-2 is open (2 of 2)');
    expect(next).toContain('Task: Write note 2');
    // Told once: the request after that no longer repeats the approval.
    expect(requestText(model, 2)).not.toContain('was approved by ana');
    expect(result.checkpoints).toEqual({ 'T-1': 'approved', 'T-2': 'pending' });
  });

  it('reject: unlocked again, the feedback in the next request until the next submit', async () => {
    const {
      session: s,
      model,
      events,
    } = session(twoTasks(), [
      { toolCalls: [submit('T-1', 'skipped it')] },
      { toolCalls: [note(1)] },
      { toolCalls: [submit('T-1', 'wrote it')] },
    ]);
    await s.run();
    s.reject('T-1', { by: 'ana', feedback: 'You did not write note 1.' });
    expect(s.state.guards.checkpoints.records['T-1']?.state).toBe('unlocked');
    expect(ofType(events, 'checkpoint:rejected')).toEqual([
      {
        type: 'checkpoint:rejected',
        path: [],
        tick: 1,
        id: 'T-1',
        by: 'ana',
        feedback: 'You did not write note 1.',
      },
    ]);
    const second = await s.run();
    expect(second.status).toBe('awaiting-approval');
    expect(requestText(model, 1)).toContain('Feedback: You did not write note 1.');
    expect(requestText(model, 2)).toContain('Feedback: You did not write note 1.');
    expect(s.state.guards.checkpoints.ledger.map((e) => e.kind)).toEqual([
      'submitted',
      'rejected',
      'submitted',
    ]);
  });

  it('throws typed errors for an unknown or not-pending checkpoint, changing nothing', async () => {
    const { session: s } = session(twoTasks(), [{ toolCalls: [submit('T-1')] }]);
    await s.run();
    const before = s.state;
    expect(() => s.approve('T-9', { by: 'ana' })).toThrow(UnknownCheckpointError);
    expect(() => s.approve('T-2', { by: 'ana' })).toThrow(CheckpointNotPendingError);
    expect(() => s.reject('T-1', { by: 'ana', feedback: ' ' })).toThrow(/needs feedback/);
    expect(s.state).toBe(before);
  });
});

// ---- ledger, snapshots, signing ---------------------------------------------------------

describe('ledger and signing', () => {
  const KEY = 'test-approval-key';

  it('records who, when, tick and note; survives a snapshot; RunResult carries it', async () => {
    const { session: s } = session(
      <Agent>
        <Checkpoint id="T-1" />
      </Agent>,
      [{ toolCalls: [submit('T-1', 'did it')] }],
    );
    await s.run();
    s.approve('T-1', { by: 'ana', note: 'fine' });
    const restored = createSession(
      <Agent>
        <Checkpoint id="T-1" />
      </Agent>,
      { model: scriptedModel(['done']), snapshot: s.snapshot(), store: createMemoryStore() },
    );
    const result = await restored.run();
    expect(result.status).toBe('completed');
    expect(result.checkpointLedger).toEqual([
      {
        seq: 1,
        checkpoint: 'T-1',
        kind: 'submitted',
        by: 'model',
        at: expect.any(String),
        tick: 1,
        summary: 'did it',
        nonce: expect.stringMatching(/^[\w-]{22}$/),
      },
      {
        seq: 2,
        checkpoint: 'T-1',
        kind: 'approved',
        by: 'ana',
        at: expect.any(String),
        tick: 1,
        note: 'fine',
        answers: 1,
        // The approval names the submission it answers.
        nonce: result.checkpointLedger[0]!.nonce,
      },
    ]);
    expect(Date.parse(result.checkpointLedger[1]!.at)).not.toBeNaN();
    expect(restored.state.guards.checkpoints.ledger).toEqual(result.checkpointLedger);
  });

  it('signs every entry with approvalKey', async () => {
    const { session: s } = session(
      <Agent>
        <Checkpoint id="T-1" />
      </Agent>,
      [{ toolCalls: [submit('T-1')] }],
      { approvalKey: KEY },
    );
    await s.run();
    s.approve('T-1', { by: 'ana' });
    expect(s.state.guards.checkpoints.ledger.map((e) => e.signature)).toEqual([
      expect.stringMatching(/^[0-9a-f]{64}$/),
      expect.stringMatching(/^[0-9a-f]{64}$/),
    ]);
  });

  it('an empty approvalKey signs nothing and says so', async () => {
    const { session: s, events } = session(
      <Agent>
        <Checkpoint id="T-1" />
      </Agent>,
      [{ toolCalls: [submit('T-1')] }],
      { approvalKey: '' },
    );
    await s.run();
    s.approve('T-1', { by: 'ana' });
    expect(s.state.guards.checkpoints.ledger.map((e) => e.signature)).toEqual([
      undefined,
      undefined,
    ]);
    expect(ofType(events, 'warning').map((e) => e.code)).toEqual(['checkpoint-empty-key']);
  });

  it('a snapshot with the state flipped to approved stays pending, with a warning', async () => {
    const { session: s } = session(
      <Agent>
        <Checkpoint id="T-1" />
      </Agent>,
      [{ toolCalls: [submit('T-1')] }],
      { approvalKey: KEY },
    );
    await s.run();
    const tampered = s.snapshot();
    const state = tampered.state as unknown as {
      guards: { checkpoints: { records: Record<string, { state: string }> } };
    };
    state.guards.checkpoints.records['T-1']!.state = 'approved';
    const model = scriptedModel(['should not be called']);
    const events: AgateEvent[] = [];
    const restored = createSession(
      <Agent>
        <Checkpoint id="T-1" />
      </Agent>,
      {
        model,
        snapshot: tampered,
        approvalKey: KEY,
        onEvent: (e) => events.push(e),
        store: createMemoryStore(),
      },
    );
    const result = await restored.run();
    expect(result.status).toBe('awaiting-approval');
    expect(model.calls).toHaveLength(0);
    expect(ofType(events, 'warning')).toEqual([
      expect.objectContaining({
        code: 'checkpoint-unverified',
        message: expect.stringContaining('Checkpoint "T-1" counts as pending'),
      }),
    ]);
    // A real approval still works afterwards.
    restored.approve('T-1', { by: 'ana' });
    expect(restored.state.guards.checkpoints.records['T-1']?.state).toBe('approved');
  });

  it('restores a snapshot from before checkpoints existed', async () => {
    const { session: s } = session(<Agent />, ['hi']);
    await s.run();
    const old = s.snapshot();
    const { checkpoints: _c, ...guards } = old.state.guards;
    const rest = { ...old.state, guards };
    const restored = createSession(
      <Agent>
        <Checkpoint id="T-1" />
      </Agent>,
      {
        model: scriptedModel([{ toolCalls: [submit('T-1')] }]),
        snapshot: { ...old, state: rest },
        store: createMemoryStore(),
      },
    );
    expect(restored.state.guards.checkpoints.records).toEqual({});
    expect((await restored.run()).status).toBe('awaiting-approval');
  });
});
