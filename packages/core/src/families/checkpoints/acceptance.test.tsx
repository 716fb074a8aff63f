/**
 * Acceptance scenarios for issue 7 §2, written from the words (not from the other
 * tests): each `it` is one sentence of the issue, run through a scripted model.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ScriptedModel, type ScriptedTurn, scriptedModel } from '@agate/testing';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  type AgateEvent,
  approveCheckpoint,
  Checkpoint,
  CheckpointNotPendingError,
  createFileStore,
  createMemoryStore,
  createSession,
  type SessionOptions,
  type SessionStore,
  System,
  Timeline,
  Tool,
  UnknownCheckpointError,
  User,
} from '../../index.js';

let dir: string;
let ran: string[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agate-cp-acceptance-'));
  ran = [];
  // No key from the machine running the tests: each scenario says whether it has one.
  vi.stubEnv('AGATE_APPROVAL_KEY', undefined);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

/** An agent with a file writer, a real shell (declares no writes) and a reader. */
function Agent({ children }: { children: ReactNode }) {
  return (
    <>
      <System>Work through the tasks.</System>
      <User>Go.</User>
      <Timeline />
      <Tool
        name="write_file"
        description="Write a file."
        input={z.object({ path: z.string(), content: z.string() })}
        writes={(input) => [input.path]}
        execute={async ({ path, content }) => {
          ran.push(`write_file ${path}`);
          await writeFile(join(dir, path), content);
          return 'written';
        }}
      />
      <Tool
        name="bash"
        description="Run a shell command."
        input={z.object({ command: z.string() })}
        execute={({ command }) => {
          ran.push(`bash ${command}`);
          return execFileSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8' });
        }}
      />
      <Tool
        name="read_file"
        description="Read a file."
        input={z.object({ path: z.string() })}
        execute={({ path }) => {
          ran.push(`read_file ${path}`);
          return 'contents';
        }}
      />
      {children}
    </>
  );
}

const call = (toolName: string, input: Record<string, unknown>) => ({ toolName, input });
const submit = (id: string, summary = `${id} done`) => call('submit_checkpoint', { id, summary });
const read = (path = 'a.txt') => call('read_file', { path });

function setup(
  checkpoints: ReactNode,
  turns: ScriptedTurn[],
  options: Partial<SessionOptions> = {},
) {
  const model = scriptedModel(turns);
  const events: AgateEvent[] = [];
  const session = createSession(<Agent>{checkpoints}</Agent>, {
    model,
    store: createMemoryStore(),
    onEvent: (e) => events.push(e),
    ...options,
  });
  return { model, events, session };
}

/** The text of the model's n-th request (0-based), every message and system part. */
function request(model: ScriptedModel, n: number): string {
  return JSON.stringify(model.calls[n]?.prompt);
}

const results = (events: AgateEvent[]) =>
  events.flatMap((e) => (e.type === 'tool:result' ? [e] : []));

describe('submit tool (Approach A)', () => {
  it('is offered while a checkpoint is open, with input { id, summary }', async () => {
    const { model, session } = setup(<Checkpoint id="T-1" task="t" />, [
      { toolCalls: [submit('T-1')] },
    ]);
    await session.run();
    const tool = model.calls[0]?.tools?.find((t) => t.name === 'submit_checkpoint');
    expect(tool).toBeDefined();
    const schema = tool && 'inputSchema' in tool ? tool.inputSchema : undefined;
    expect(Object.keys((schema as { properties: object }).properties).sort()).toEqual([
      'id',
      'summary',
    ]);
  });

  it('a call for the open checkpoint makes it pending', async () => {
    const { session } = setup(<Checkpoint id="T-1" task="t" />, [{ toolCalls: [submit('T-1')] }]);
    const result = await session.run();
    expect(result.checkpoints).toEqual({ 'T-1': 'pending' });
  });

  it('a call for a checkpoint that is not open is a tool error naming the open one', async () => {
    const { session, events } = setup(
      <>
        <Checkpoint id="T-1" task="first" />
        <Checkpoint id="T-2" task="second" />
      </>,
      [{ toolCalls: [submit('T-2'), submit('nope')] }, { toolCalls: [read()] }, 'done'],
      { maxTicks: 2 },
    );
    const result = await session.run();
    const submits = results(events).filter((r) => r.toolName === 'submit_checkpoint');
    expect(submits).toHaveLength(2);
    for (const r of submits) {
      expect(r.isError).toBe(true);
      expect(String(r.output)).toContain('The open checkpoint is T-1');
    }
    expect(result.checkpoints).toEqual({ 'T-1': 'unlocked', 'T-2': 'unlocked' });
    expect(result.checkpointLedger).toEqual([]);
    // The refused submit stopped nothing: the next tick ran.
    expect(ran).toEqual(['read_file a.txt']);
  });
});

describe('iteration budget', () => {
  it('counts ticks while open; when used up it goes pending with a reason naming the budget', async () => {
    const { session, model } = setup(<Checkpoint id="T-1" task="t" budget={3} />, [
      { toolCalls: [read()] },
      { toolCalls: [read()] },
      { toolCalls: [read()] },
      { toolCalls: [read()] },
    ]);
    const result = await session.run();
    expect(model.calls).toHaveLength(3);
    expect(result.status).toBe('awaiting-approval');
    expect(result.checkpoints['T-1']).toBe('pending');
    const trip = result.checkpointLedger.at(-1);
    expect(trip).toMatchObject({ checkpoint: 'T-1', kind: 'budget', by: 'runtime', tick: 3 });
    expect(trip?.reason).toMatch(/budget/);
    expect(result.reason).toMatch(/budget of 3 ticks ran out/);
  });

  it('defaults to 15 ticks', async () => {
    const { session, model } = setup(
      <Checkpoint id="T-1" task="t" />,
      Array.from({ length: 20 }, () => ({ toolCalls: [read()] })),
    );
    const result = await session.run();
    expect(model.calls).toHaveLength(15);
    expect(result.checkpointLedger.map((e) => [e.kind, e.tick])).toEqual([['budget', 15]]);
  });

  it('does not count while a later checkpoint waits, and counts from zero after a rejection', async () => {
    const { session, model } = setup(
      <>
        <Checkpoint id="T-1" task="first" budget={10} />
        <Checkpoint id="T-2" task="second" budget={2} />
      </>,
      [
        { toolCalls: [read()] },
        { toolCalls: [read()] },
        { toolCalls: [read(), submit('T-1')] },
        // T-2 opens now: two ticks of budget.
        { toolCalls: [read()] },
        { toolCalls: [read()] },
        // After the rejection: two fresh ticks.
        { toolCalls: [read()] },
        { toolCalls: [read()] },
      ],
    );
    expect((await session.run()).checkpoints).toEqual({ 'T-1': 'pending', 'T-2': 'unlocked' });
    session.approve('T-1', { by: 'ana' });
    const second = await session.run();
    expect(second.ticks).toBe(2);
    expect(second.checkpointLedger.at(-1)).toMatchObject({ kind: 'budget', checkpoint: 'T-2' });
    session.reject('T-2', { by: 'ana', feedback: 'Try harder.' });
    expect(session.state.guards.checkpoints.records['T-2']).toMatchObject({
      state: 'unlocked',
      ticks: 0,
    });
    const third = await session.run();
    expect(third.ticks).toBe(2);
    expect(third.status).toBe('awaiting-approval');
    expect(model.calls).toHaveLength(7);
  });
});

describe('file trigger', () => {
  it('fires for a file a shell wrote (the tool declares nothing), and the same-response calls after it never run', async () => {
    const { session, events } = setup(
      <Checkpoint id="requirements" trigger={{ fileWritten: 'docs/req.md' }} workspace={dir} />,
      [
        {
          toolCalls: [
            read(),
            call('bash', { command: 'mkdir -p docs && echo "# Req" > docs/req.md' }),
            read('after'),
          ],
        },
        'unreachable',
      ],
    );
    const result = await session.run();
    expect(result.status).toBe('awaiting-approval');
    expect(result.checkpoints.requirements).toBe('pending');
    expect(result.checkpointLedger.at(-1)).toMatchObject({ kind: 'file', by: 'runtime' });
    expect(ran).toEqual(['read_file a.txt', 'bash mkdir -p docs && echo "# Req" > docs/req.md']);
    expect(events.filter((e) => e.type === 'tool:refused')).toHaveLength(1);
  });

  it('fires for a file that existed before and was changed, not for one left alone', async () => {
    await writeFile(join(dir, 'req.md'), 'draft one\n');
    const { session } = setup(
      <Checkpoint id="requirements" trigger={{ fileWritten: 'req.md' }} workspace={dir} />,
      [
        { toolCalls: [call('bash', { command: 'cat req.md' })] },
        { toolCalls: [call('bash', { command: 'echo "draft two, longer" > req.md' })] },
        'unreachable',
      ],
    );
    const result = await session.run();
    expect(result.ticks).toBe(2);
    expect(result.checkpoints.requirements).toBe('pending');
    expect(await readFile(join(dir, 'req.md'), 'utf8')).toBe('draft two, longer\n');
  });
});

describe('file trigger, a tool that fails after writing', () => {
  it('fires when the shell wrote the file and then failed (the call still left it written)', async () => {
    const { session, events } = setup(
      <Checkpoint id="requirements" trigger={{ fileWritten: 'req.md' }} workspace={dir} />,
      [{ toolCalls: [call('bash', { command: 'echo x > req.md; exit 3' }), read()] }],
    );
    const result = await session.run();
    expect(results(events)[0]?.isError).toBe(true);
    expect(result.checkpoints.requirements).toBe('pending');
    expect(ran).toEqual(['bash echo x > req.md; exit 3']);
  });
});

describe('tool intercept (Approach B)', () => {
  it('refuses every tool by default after a submit in the same response, execute never runs', async () => {
    const { session, events } = setup(<Checkpoint id="T-1" task="t" />, [
      {
        toolCalls: [
          call('write_file', { path: 'x', content: '1' }),
          submit('T-1'),
          read(),
          call('write_file', { path: 'y', content: '2' }),
        ],
      },
    ]);
    await session.run();
    expect(ran).toEqual(['write_file x']);
    const refused = events.flatMap((e) => (e.type === 'tool:refused' ? [e] : []));
    expect(refused.map((e) => [e.toolName, e.by, e.message])).toEqual([
      ['read_file', 'checkpoint', 'Execution blocked. Supervisor must approve checkpoint T-1.'],
      ['write_file', 'checkpoint', 'Execution blocked. Supervisor must approve checkpoint T-1.'],
    ]);
  });

  it("guards={['write_file','bash']} refuses only those; other tools keep running while pending", async () => {
    const { session, events } = setup(
      <Checkpoint id="T-2" task="Write the migration" guards={['write_file', 'bash']} />,
      [
        {
          toolCalls: [
            submit('T-2'),
            read('one'),
            call('write_file', { path: 'm.sql', content: 'x' }),
            call('bash', { command: 'echo hi' }),
            read('two'),
          ],
        },
      ],
    );
    await session.run();
    expect(ran).toEqual(['read_file one', 'read_file two']);
    const byName = results(events).map((r) => [r.toolName, r.isError, r.output]);
    expect(byName).toContainEqual([
      'write_file',
      true,
      'Execution blocked. Supervisor must approve checkpoint T-2.',
    ]);
    expect(byName).toContainEqual([
      'bash',
      true,
      'Execution blocked. Supervisor must approve checkpoint T-2.',
    ]);
  });
});

describe('model cut-off (Approach C)', () => {
  it('ends the run at once with awaiting-approval and a reason that names the checkpoint and how to approve', async () => {
    const { session, model } = setup(<Checkpoint id="T-1" task="t" />, [
      { toolCalls: [submit('T-1', 'auth done')] },
      'never asked',
    ]);
    const result = await session.run();
    expect(model.calls).toHaveLength(1);
    expect(result.status).toBe('awaiting-approval');
    expect(result.reason).toContain('"T-1"');
    expect(result.reason).toContain('approve');
  });

  it('run() and tick() on a pending session make no model call and return awaiting-approval', async () => {
    const { session, model } = setup(<Checkpoint id="T-1" task="t" />, [
      { toolCalls: [submit('T-1')] },
      'never asked',
    ]);
    await session.run();
    const calls = model.calls.length;
    const again = await session.run();
    expect(again.status).toBe('awaiting-approval');
    expect(again.ticks).toBe(0);
    const tick = await session.tick();
    expect(tick).toMatchObject({ done: true, status: 'awaiting-approval' });
    expect(model.calls.length).toBe(calls);
    expect(session.state.tick).toBe(1);
  });
});

describe('supervisor', () => {
  it('after approve, the next run goes on and its first request says T-1 was approved, with the note', async () => {
    const { session, model, events } = setup(
      <>
        <Checkpoint id="T-1" task="first" />
        <Checkpoint id="T-2" task="second" />
      </>,
      [{ toolCalls: [submit('T-1')] }, { toolCalls: [submit('T-2')] }],
    );
    await session.run();
    session.approve('T-1', { by: 'ana', note: 'Keep logout symmetric.' });
    const second = await session.run();
    expect(second.checkpoints).toEqual({ 'T-1': 'approved', 'T-2': 'pending' });
    const next = request(model, 1);
    expect(next).toContain('T-1 was approved by ana');
    expect(next).toContain('Keep logout symmetric.');
    expect(events.find((e) => e.type === 'checkpoint:approved')).toMatchObject({
      id: 'T-1',
      by: 'ana',
      note: 'Keep logout symmetric.',
    });
  });

  it('after reject, the checkpoint is unlocked with a fresh budget and the next request has the feedback', async () => {
    const { session, model, events } = setup(<Checkpoint id="T-1" task="t" budget={4} />, [
      { toolCalls: [read()] },
      { toolCalls: [submit('T-1')] },
      { toolCalls: [submit('T-1', 'again')] },
    ]);
    await session.run();
    // The read tick counted; the tick whose submit made it pending did not (see the docs).
    expect(session.state.guards.checkpoints.records['T-1']?.ticks).toBe(1);
    session.reject('T-1', { by: 'ana', feedback: 'Add tests for the token refresh.' });
    expect(session.state.guards.checkpoints.records['T-1']).toMatchObject({
      state: 'unlocked',
      ticks: 0,
    });
    await session.run();
    expect(request(model, 2)).toContain('Add tests for the token refresh.');
    expect(request(model, 1)).not.toContain('Add tests for the token refresh.');
    expect(events.find((e) => e.type === 'checkpoint:rejected')).toMatchObject({
      id: 'T-1',
      by: 'ana',
      feedback: 'Add tests for the token refresh.',
    });
  });
});

describe('supervisor errors and the end of the checkpoints', () => {
  it('approve on an unknown or not pending checkpoint throws and changes nothing', async () => {
    const { session } = setup(
      <>
        <Checkpoint id="T-1" task="first" />
        <Checkpoint id="T-2" task="second" />
      </>,
      [{ toolCalls: [read()] }],
      { maxTicks: 1 },
    );
    await session.run();
    const before = session.state;
    expect(() => session.approve('T-9', { by: 'ana' })).toThrow(UnknownCheckpointError);
    expect(() => session.approve('T-1', { by: 'ana' })).toThrow(CheckpointNotPendingError);
    expect(() => session.reject('T-2', { by: 'ana', feedback: 'x' })).toThrow(
      CheckpointNotPendingError,
    );
    expect(session.state).toBe(before);
  });

  it('once every checkpoint is approved, submit_checkpoint is no longer offered and the run completes', async () => {
    const { session, model } = setup(<Checkpoint id="T-1" task="t" />, [
      { toolCalls: [submit('T-1')] },
      'All done.',
    ]);
    await session.run();
    session.approve('T-1', { by: 'ana' });
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(model.calls[1]?.tools?.map((t) => t.name)).not.toContain('submit_checkpoint');
  });
});

describe('ledger and events', () => {
  it('records submissions, trips, approvals and rejections (who, when, tick, note, feedback) in state and RunResult', async () => {
    const { session, events } = setup(<Checkpoint id="T-1" task="t" budget={1} />, [
      { toolCalls: [read()] },
      { toolCalls: [submit('T-1', 'v2')] },
    ]);
    await session.run();
    session.reject('T-1', { by: 'bo', feedback: 'not yet' });
    await session.run();
    session.approve('T-1', { by: 'ana', note: 'fine' });
    const result = await session.run();
    const ledger = result.checkpointLedger;
    expect(ledger).toEqual(session.state.guards.checkpoints.ledger);
    expect(ledger.map((e) => [e.kind, e.by, e.tick])).toEqual([
      ['budget', 'runtime', 1],
      ['rejected', 'bo', 1],
      ['submitted', 'model', 2],
      ['approved', 'ana', 2],
    ]);
    expect(ledger[1]?.feedback).toBe('not yet');
    expect(ledger[2]?.summary).toBe('v2');
    expect(ledger[3]?.note).toBe('fine');
    for (const e of ledger) expect(Number.isNaN(Date.parse(e.at))).toBe(false);
    const types = events.map((e) => e.type).filter((t) => t.startsWith('checkpoint:'));
    expect(types).toEqual([
      'checkpoint:pending',
      'checkpoint:rejected',
      'checkpoint:submitted',
      'checkpoint:pending',
      'checkpoint:approved',
    ]);
    // It survives a snapshot.
    const restored = createSession(
      <Agent>
        <Checkpoint id="T-1" task="t" budget={1} />
      </Agent>,
      { model: scriptedModel(['x']), snapshot: session.snapshot() },
    );
    expect(restored.state.guards.checkpoints.ledger).toEqual(ledger);
  });
});

describe('across processes and forged approvals', () => {
  const KEY = 'acceptance-key';
  const two = (
    <>
      <Checkpoint id="T-1" task="first" />
      <Checkpoint id="T-2" task="second" />
    </>
  );

  async function pendingOnFile(
    store: SessionStore,
    approveFirst: boolean,
    key: Partial<SessionOptions> = { approvalKey: KEY },
  ) {
    const turns: ScriptedTurn[] = [{ toolCalls: [submit('T-1')] }, { toolCalls: [submit('T-2')] }];
    const { session } = setup(two, turns, { id: 'acc', store, ...key });
    await session.run();
    if (approveFirst) {
      session.approve('T-1', { by: 'ana' });
      await session.run();
    }
  }

  it('a run that ends awaiting-approval is saved to its store; approveCheckpoint then a new session continues', async () => {
    const store = createFileStore(join(dir, 'sessions'));
    await pendingOnFile(store, false);
    const saved = await store.load('acc');
    expect((saved?.state as { status: string } | undefined)?.status).toBe('awaiting-approval');
    await approveCheckpoint(store, 'acc', 'T-1', { by: 'ana', note: 'ship it', key: KEY });
    const snapshot = await store.load('acc');
    const model = scriptedModel([{ toolCalls: [submit('T-2')] }]);
    const next = createSession(<Agent>{two}</Agent>, {
      model,
      store,
      snapshot,
      approvalKey: KEY,
    });
    const result = await next.run();
    expect(result.checkpoints).toEqual({ 'T-1': 'approved', 'T-2': 'pending' });
    expect(request(model, 0)).toContain('ship it');
  });

  it('without options.store, a run that ends awaiting-approval is saved to the default file store', async () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const session = createSession(
        <Agent>
          <Checkpoint id="T-1" task="t" />
        </Agent>,
        { id: 'no-store', model: scriptedModel([{ toolCalls: [submit('T-1')] }]) },
      );
      expect((await session.run()).status).toBe('awaiting-approval');
    } finally {
      process.chdir(cwd);
    }
    const saved = await createFileStore(join(dir, '.agate/sessions')).load('no-store');
    expect(saved?.label).toContain('awaiting-approval');
  });

  it('a hand-edited snapshot (state flipped to approved) stays pending with a warning', async () => {
    const store = createFileStore(join(dir, 'sessions'));
    await pendingOnFile(store, false);
    const file = join(dir, 'sessions', 'acc.json');
    const json = JSON.parse(await readFile(file, 'utf8'));
    json.state.guards.checkpoints.records['T-1'].state = 'approved';
    json.state.status = 'idle';
    await writeFile(file, JSON.stringify(json));
    await expectStillPending(store, 'T-1');
  });

  it('with the key from AGATE_APPROVAL_KEY (no option), a copied approval stays pending too', async () => {
    vi.stubEnv('AGATE_APPROVAL_KEY', KEY);
    const store = createFileStore(join(dir, 'sessions'));
    await pendingOnFile(store, true, {});
    await copyApproval(store);
    await expectStillPending(store, 'T-2', {});
  });

  it('without a key, a state flipped with no approval entry behind it stays pending', async () => {
    const store = createFileStore(join(dir, 'sessions'));
    const { session } = setup(two, [{ toolCalls: [submit('T-1')] }], { id: 'acc', store });
    await session.run();
    await flip(store, 'T-1');
    await expectStillPending(store, 'T-1', {});
  });

  async function flip(store: SessionStore, id: string) {
    const file = join(dir, 'sessions', 'acc.json');
    expect(await store.load('acc')).toBeDefined();
    const json = JSON.parse(await readFile(file, 'utf8'));
    json.state.guards.checkpoints.records[id].state = 'approved';
    json.state.status = 'idle';
    await writeFile(file, JSON.stringify(json));
  }

  it('an approval entry copied from another checkpoint does not approve this one', async () => {
    const store = createFileStore(join(dir, 'sessions'));
    await pendingOnFile(store, true);
    await copyApproval(store);
    await expectStillPending(store, 'T-2');
  });

  it('without a key the same copied approval, its nonce set to the submission it claims to answer, is accepted, as the docs warn (so the key is what stops it)', async () => {
    const store = createFileStore(join(dir, 'sessions'));
    await pendingOnFile(store, true, {});
    await copyApproval(store, { renamed: true });
    const model = scriptedModel(['All done.']);
    const restored = createSession(<Agent>{two}</Agent>, {
      model,
      store,
      snapshot: await store.load('acc'),
    });
    expect((await restored.run()).status).toBe('completed');
  });

  it('an approval whose text was edited, or copied from another session with the same key, stays pending', async () => {
    const store = createFileStore(join(dir, 'sessions'));
    await pendingOnFile(store, true);
    const file = join(dir, 'sessions', 'acc.json');
    const text = await readFile(file, 'utf8');
    // Another session with the same key and the same history: its approval answers the same seq.
    const other = setup(two, [{ toolCalls: [submit('T-1')] }, { toolCalls: [submit('T-2')] }], {
      id: 'other',
      approvalKey: KEY,
    });
    await other.session.run();
    other.session.approve('T-1', { by: 'ana' });
    await other.session.run();
    other.session.approve('T-2', { by: 'ana' });
    const foreign = other.session.state.guards.checkpoints.ledger.at(-1);
    const json = JSON.parse(text);
    const ledger = json.state.guards.checkpoints.ledger as Array<Record<string, unknown>>;
    const t2 = ledger.findLast((e) => e.checkpoint === 'T-2');
    ledger.push({ ...foreign, seq: ledger.length + 1, answers: t2?.seq });
    json.state.guards.checkpoints.records['T-2'].state = 'approved';
    await writeFile(file, JSON.stringify(json));
    await expectStillPending(store, 'T-2');

    // Edited text: T-1's approval now says someone else approved it.
    const edited = JSON.parse(text);
    const approval = (
      edited.state.guards.checkpoints.ledger as Array<Record<string, unknown>>
    ).find((e) => e.kind === 'approved');
    if (approval) approval.by = 'mallory';
    await writeFile(file, JSON.stringify(edited));
    await expectStillPending(store, 'T-1');
  });

  it('an unsigned session approved with a key through approveCheckpoint continues under that key', async () => {
    const store = createFileStore(join(dir, 'sessions'));
    await pendingOnFile(store, false, {});
    await approveCheckpoint(store, 'acc', 'T-1', { by: 'ana', key: KEY });
    const model = scriptedModel([{ toolCalls: [submit('T-2')] }]);
    const restored = createSession(<Agent>{two}</Agent>, {
      model,
      store,
      snapshot: await store.load('acc'),
      approvalKey: KEY,
    });
    const result = await restored.run();
    expect(result.checkpoints).toEqual({ 'T-1': 'approved', 'T-2': 'pending' });
  });

  /**
   * Copies T-1's approval onto T-2's submission and flips T-2 to approved; `renamed` also gives
   * it T-2's nonce (what a forger without the key does once the plain copy is refused).
   */
  async function copyApproval(store: SessionStore, { renamed = false } = {}) {
    expect(await store.load('acc')).toBeDefined();
    const file = join(dir, 'sessions', 'acc.json');
    const json = JSON.parse(await readFile(file, 'utf8'));
    const ledger = json.state.guards.checkpoints.ledger as Array<Record<string, unknown>>;
    const approval = ledger.find((e) => e.kind === 'approved' && e.checkpoint === 'T-1');
    const submission = ledger.findLast((e) => e.kind === 'submitted' && e.checkpoint === 'T-2');
    ledger.push({
      ...approval,
      checkpoint: 'T-2',
      seq: ledger.length + 1,
      answers: submission?.seq,
      ...(renamed ? { nonce: submission?.nonce } : {}),
    });
    json.state.guards.checkpoints.records['T-2'].state = 'approved';
    json.state.status = 'idle';
    await writeFile(file, JSON.stringify(json));
  }

  async function expectStillPending(
    store: SessionStore,
    id: string,
    key: Partial<SessionOptions> = { approvalKey: KEY },
  ) {
    const events: AgateEvent[] = [];
    const model = scriptedModel(['I am through!']);
    const restored = createSession(<Agent>{two}</Agent>, {
      model,
      store,
      snapshot: await store.load('acc'),
      ...key,
      onEvent: (e) => events.push(e),
    });
    const result = await restored.run();
    expect(result.status).toBe('awaiting-approval');
    expect(result.checkpoints[id]).toBe('pending');
    expect(model.calls).toHaveLength(0);
    const warning = events.find((e) => e.type === 'warning' && e.code === 'checkpoint-unverified');
    expect(warning && 'message' in warning ? warning.message : '').toContain(id);
  }
});
