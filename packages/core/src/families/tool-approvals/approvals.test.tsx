import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModel } from '@agate/testing';
import { tool } from 'ai';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  type AgateEvent,
  ApprovalKeyError,
  Checkpoint,
  createMemoryStore,
  generateApprovalKeyPair,
  type SessionState,
  Tool,
  ToolApprovalDecisionError,
  ToolCallNotPendingError,
  UnknownToolCallError,
  User,
} from '../../index.js';
import { createSession, type SessionOptions } from '../../runtime/session.js';
import { ApprovalAgent, approvalModel, executed } from './__fixtures__/approval-agent.js';
import { approveToolCall, denyToolCall } from './approve-tool-call.js';

const KEY = 'approvals-test-key';

beforeEach(() => {
  executed.length = 0;
});

function start(options: Partial<SessionOptions> = {}, model = approvalModel()) {
  const events: AgateEvent[] = [];
  const session = createSession(<ApprovalAgent />, {
    model,
    store: createMemoryStore(),
    approvalKey: KEY,
    onEvent: (e) => events.push(e),
    ...options,
  });
  return { session, model, events };
}

/** The tool results the model was sent in its last request, in order: [id, text]. */
function resultsSent(model: ReturnType<typeof approvalModel>): Array<[string, string]> {
  const prompt = model.calls.at(-1)?.prompt ?? [];
  return prompt
    .filter((m) => m.role === 'tool')
    .flatMap((m) => m.content)
    .map((p) => {
      const part = p as { toolCallId: string; output: { value: unknown } };
      return [part.toolCallId, JSON.stringify(part.output.value)];
    });
}

describe('<Tool needsApproval>', () => {
  it('holds the call, runs the others, ends awaiting-approval; approved, it runs first on the next run', async () => {
    const { session, model, events } = start();
    const first = await session.run();
    expect(first.status).toBe('awaiting-approval');
    expect(first.pendingApprovals).toEqual([
      { id: 'c-drop', toolName: 'drop_table', input: { table: 'users' }, tick: 1 },
    ]);
    expect(first.reason).toContain('agate approve');
    expect(first.reason).toContain('c-drop');
    // The safe call and the small payment ran; the drop did not.
    expect(executed).toEqual(['count_rows:users', 'pay:5']);
    expect(events.some((e) => e.type === 'tool:held' && e.toolCallId === 'c-drop')).toBe(true);
    expect(model.calls).toHaveLength(1);

    // No model call while it waits.
    const again = await session.run();
    expect(again.status).toBe('awaiting-approval');
    expect([again.ticks, model.calls.length]).toEqual([0, 1]);

    const entry = session.approveToolCall('c-drop', { by: 'dba', reason: 'backup taken' });
    expect(entry).toMatchObject({ kind: 'tool-approved', checkpoint: 'c-drop', by: 'dba' });
    expect(entry.signature).toEqual(expect.any(String));
    expect(events.some((e) => e.type === 'tool:approved' && e.by === 'dba')).toBe(true);

    const done = await session.run();
    expect(done.status).toBe('completed');
    expect(done.pendingApprovals).toEqual([]);
    expect(executed).toEqual(['count_rows:users', 'pay:5', 'drop_table:users']);
    // The results are in the timeline in call order, before the model's next call.
    expect(resultsSent(model).map(([id]) => id)).toEqual(['c-count', 'c-drop', 'c-pay']);
    expect(resultsSent(model)[1]![1]).toBe('"dropped users"');
    expect(session.state.guards.approvals.calls).toEqual([]);
    // The approval was spent as the call ran: the ledger says so, naming the request.
    expect(done.toolCallLedger.map((e) => e.kind)).toEqual([
      'tool-approval-request',
      'tool-approved',
      'tool-executed',
    ]);
    const [request, approval, executedEntry] = done.toolCallLedger;
    expect(approval).toMatchObject({
      answers: request!.seq,
      nonce: request!.nonce,
      toolName: 'drop_table',
      inputHash: request!.inputHash,
    });
    expect(executedEntry).toMatchObject({
      checkpoint: 'c-drop',
      by: 'runtime',
      answers: approval!.seq,
      nonce: request!.nonce,
      tick: 2,
    });
  });

  it('answers a denied call with who denied it and why, then calls the model', async () => {
    const { session, model } = start();
    await session.run();
    session.denyToolCall('c-drop', { by: 'dba', reason: 'users is production data' });
    const done = await session.run();
    expect(done.status).toBe('completed');
    expect(executed).not.toContain('drop_table:users');
    const denied = resultsSent(model).find(([id]) => id === 'c-drop')![1];
    expect(denied).toContain('denied by dba');
    expect(denied).toContain('users is production data');
    expect(resultsSent(model).map(([id]) => id)).toEqual(['c-count', 'c-drop', 'c-pay']);
  });

  it('holds every approval-needing call of one response; a mix of decisions goes in call order', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { toolCallId: 'p-big', toolName: 'pay', input: { amount: 500 } },
          { toolCallId: 'd-logs', toolName: 'drop_table', input: { table: 'logs' } },
          { toolCallId: 'c-1', toolName: 'count_rows', input: { table: 'a' } },
          { toolCallId: 'd-users', toolName: 'drop_table', input: { table: 'users' } },
        ],
      },
      'Done.',
    ]);
    const { session } = start({}, model);
    const first = await session.run();
    expect(first.pendingApprovals.map((p) => p.id)).toEqual(['p-big', 'd-logs', 'd-users']);
    expect(executed).toEqual(['count_rows:a']);

    session.approveToolCall('d-users', { by: 'ann' });
    // One decided, two still waiting: nothing runs yet, and no model call.
    const partial = await session.run();
    expect(partial.status).toBe('awaiting-approval');
    expect(partial.pendingApprovals.map((p) => p.id)).toEqual(['p-big', 'd-logs']);
    expect(executed).toEqual(['count_rows:a']);
    expect(model.calls).toHaveLength(1);

    session.denyToolCall('p-big', { by: 'ann', reason: 'too much' });
    session.approveToolCall('d-logs', { by: 'bob' });
    const done = await session.run();
    expect(done.status).toBe('completed');
    expect(executed).toEqual(['count_rows:a', 'drop_table:logs', 'drop_table:users']);
    expect(resultsSent(model).map(([id]) => id)).toEqual(['p-big', 'd-logs', 'c-1', 'd-users']);
  });

  it('an approval counts for its call only: a later call reusing the id (a server that sends call_0 each time) is held again', async () => {
    // Some OpenAI-compatible servers number calls per response, so every response says call_0.
    const model = scriptedModel([
      { toolCalls: [{ toolCallId: 'call_0', toolName: 'drop_table', input: { table: 'logs' } }] },
      { toolCalls: [{ toolCallId: 'call_0', toolName: 'drop_table', input: { table: 'users' } }] },
      'Done.',
    ]);
    const { session } = start({}, model);
    const first = await session.run();
    expect(first.pendingApprovals).toEqual([
      { id: 'call_0', toolName: 'drop_table', input: { table: 'logs' }, tick: 1 },
    ]);
    session.approveToolCall('call_0', { by: 'dba' });
    const second = await session.run();
    // The approved call ran; the new call with the same id waits for its own decision.
    expect(executed).toEqual(['drop_table:logs']);
    expect(second.status).toBe('awaiting-approval');
    expect(second.pendingApprovals).toEqual([
      { id: 'call_0', toolName: 'drop_table', input: { table: 'users' }, tick: 2 },
    ]);
    session.denyToolCall('call_0', { by: 'dba', reason: 'users is production data' });
    const done = await session.run();
    expect(done.status).toBe('completed');
    expect(executed).toEqual(['drop_table:logs']);
  });

  it('refuses bad decisions with typed errors, changing nothing', async () => {
    const { session } = start();
    await session.run();
    const before = session.state;
    expect(() => session.approveToolCall('nope', { by: 'x' })).toThrow(UnknownToolCallError);
    expect(() => session.approveToolCall('c-drop', { by: ' ' })).toThrow(ToolApprovalDecisionError);
    expect(() => session.denyToolCall('c-drop', { by: 'x', reason: '' })).toThrow(
      ToolApprovalDecisionError,
    );
    expect(session.state).toBe(before);
    session.approveToolCall('c-drop', { by: 'x' });
    expect(() => session.denyToolCall('c-drop', { by: 'y', reason: 'late' })).toThrow(
      ToolCallNotPendingError,
    );
  });

  it('a call another guard refuses is refused, not put up for approval', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { toolCallId: 's', toolName: 'submit_checkpoint', input: { id: 'T', summary: 'ok' } },
          { toolCallId: 'd', toolName: 'drop_table', input: { table: 'users' } },
        ],
      },
    ]);
    const session = createSession(
      <>
        <ApprovalAgent />
        <Checkpoint id="T" task="Look around" />
      </>,
      { model, store: createMemoryStore() },
    );
    const result = await session.run();
    expect(result.status).toBe('awaiting-approval');
    expect(result.checkpoints).toEqual({ T: 'pending' });
    expect(result.pendingApprovals).toEqual([]);
    expect(JSON.stringify(result.timeline)).toContain('Supervisor must approve checkpoint T');
  });

  it('invalid arguments are the usual tool error, not a request; needsApproval(input) decides per call', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { toolCallId: 'bad', toolName: 'drop_table', input: { table: 7 } },
          { toolCallId: 'small', toolName: 'pay', input: { amount: 100 } },
        ],
      },
      'Done.',
    ]);
    const { session } = start({}, model);
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(result.pendingApprovals).toEqual([]);
    expect(JSON.stringify(result.timeline)).toContain(
      'Invalid arguments for tool \\"drop_table\\"',
    );
    expect(executed).toEqual(['pay:100']);
  });

  it('a needsApproval function that throws holds the call (fails closed), with a warning', async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolCallId: 'x', toolName: 'risky', input: {} }] },
    ]);
    const events: AgateEvent[] = [];
    const session = createSession(
      <>
        <User>Go.</User>
        <Tool
          name="risky"
          input={z.object({})}
          needsApproval={() => {
            throw new Error('policy service down');
          }}
          execute={() => 'ran'}
        />
      </>,
      { model, store: createMemoryStore(), onEvent: (e) => events.push(e) },
    );
    const result = await session.run();
    expect(result.status).toBe('awaiting-approval');
    expect(result.pendingApprovals.map((p) => p.id)).toEqual(['x']);
    expect(events.some((e) => e.type === 'warning' && e.code === 'needs-approval-failed')).toBe(
      true,
    );
  });

  it("honours an AI SDK tool's own needsApproval", async () => {
    const ran: string[] = [];
    const sdkTool = tool({
      description: 'Pushes to git',
      inputSchema: z.object({ branch: z.string() }),
      needsApproval: async ({ branch }) => branch === 'main',
      execute: async ({ branch }) => {
        ran.push(branch);
        return 'pushed';
      },
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { toolCallId: 'f', toolName: 'git_push', input: { branch: 'feature' } },
          { toolCallId: 'm', toolName: 'git_push', input: { branch: 'main' } },
        ],
      },
      'Done.',
    ]);
    const session = createSession(
      <>
        <User>Push.</User>
        <Tool name="git_push" tool={sdkTool} />
      </>,
      { model, store: createMemoryStore() },
    );
    const first = await session.run();
    expect(first.pendingApprovals.map((p) => p.id)).toEqual(['m']);
    expect(ran).toEqual(['feature']);
    session.approveToolCall('m', { by: 'lead' });
    expect((await session.run()).status).toBe('completed');
    expect(ran).toEqual(['feature', 'main']);
  });

  it('maxTicks: the tick that holds a call ends the run awaiting-approval, and a decided call still runs under maxTicks 1', async () => {
    const { session, model } = start();
    const first = await session.run({ maxTicks: 1 });
    expect(first.status).toBe('awaiting-approval');
    const waiting = await session.run({ maxTicks: 1 });
    expect([waiting.status, waiting.ticks]).toEqual(['awaiting-approval', 0]);
    session.approveToolCall('c-drop', { by: 'dba' });
    const done = await session.run({ maxTicks: 1 });
    expect(done.status).toBe('completed');
    expect(executed).toContain('drop_table:users');
    expect(model.calls).toHaveLength(2);
  });

  it('abort while a call waits keeps it pending; abort during an approved call leaves it approved for the next run', async () => {
    const { session } = start();
    await session.run();
    const controller = new AbortController();
    controller.abort(new Error('operator stopped it'));
    const aborted = await session.run({ signal: controller.signal });
    expect(aborted.status).toBe('aborted');
    expect(aborted.pendingApprovals.map((p) => p.id)).toEqual(['c-drop']);

    // An approved call that is aborted while it runs: rolled back, still approved, runs next time.
    let release: (() => void) | undefined;
    const slow = createSession(
      <>
        <User>Go.</User>
        <Tool
          name="slow"
          input={z.object({})}
          needsApproval
          execute={async (_input, { abortSignal }) => {
            await new Promise<void>((resolve, reject) => {
              release = resolve;
              abortSignal.addEventListener('abort', () => reject(abortSignal.reason), {
                once: true,
              });
            });
            return 'finished';
          }}
        />
      </>,
      {
        model: scriptedModel([
          { toolCalls: [{ toolCallId: 's1', toolName: 'slow', input: {} }] },
          'Done.',
        ]),
        store: createMemoryStore(),
      },
    );
    expect((await slow.run()).status).toBe('awaiting-approval');
    slow.approveToolCall('s1', { by: 'ops' });
    const stop = new AbortController();
    const running = slow.run({ signal: stop.signal });
    await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    const cut = await running;
    expect(cut.status).toBe('aborted');
    expect(slow.state.guards.approvals.calls.map((r) => [r.id, r.state])).toEqual([
      ['s1', 'approved'],
    ]);
    const next = slow.run();
    await new Promise((r) => setTimeout(r, 20));
    release?.();
    expect((await next).status).toBe('completed');
    expect(JSON.stringify(slow.state.timeline)).toContain('finished');
  });
});

describe('with an Ed25519 key pair', () => {
  it('the run holds only the public key: decisions need the private key, and verify where the session runs', async () => {
    const keys = generateApprovalKeyPair();
    const other = generateApprovalKeyPair();
    const store = createMemoryStore();
    const options = {
      store,
      id: 'paired',
      approvalKey: undefined,
      approvalPublicKey: keys.publicKey,
    };
    const a = start(options);
    expect((await a.session.run()).status).toBe('awaiting-approval');
    // The live session cannot sign: a decision must bring the private key.
    expect(() => a.session.approveToolCall('c-drop', { by: 'ana' })).toThrow(ApprovalKeyError);
    await expect(
      approveToolCall(store, 'paired', 'c-drop', { by: 'eve', privateKey: other.privateKey }),
    ).rejects.toThrow(ApprovalKeyError);
    const entry = await approveToolCall(store, 'paired', 'c-drop', {
      by: 'ana',
      privateKey: keys.privateKey,
    });
    expect(entry).toMatchObject({ alg: 'ed25519', keyId: keys.keyId });
    const b = start(
      { ...options, snapshot: (await store.load('paired'))!, id: undefined },
      approvalModel(true),
    );
    expect((await b.session.run()).status).toBe('completed');
    expect(executed).toContain('drop_table:users');
  });
});

describe('saving a session that waits', () => {
  it('goes to the default file store when no store is given', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agate-approvals-default-'));
    // The default store is .agate/sessions under the working directory, resolved at first save.
    const cwd = vi.spyOn(process, 'cwd').mockReturnValue(dir);
    try {
      const session = createSession(<ApprovalAgent />, { model: approvalModel(), id: 'no-store' });
      expect((await session.run()).status).toBe('awaiting-approval');
      const saved = JSON.parse(
        await readFile(join(dir, '.agate', 'sessions', 'no-store.json'), 'utf8'),
      );
      expect(saved.state.status).toBe('awaiting-approval');
      expect(saved.state.guards.approvals.calls).toMatchObject([
        { id: 'c-drop', state: 'pending' },
      ]);
    } finally {
      cwd.mockRestore();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('decisions through the store', () => {
  it('approve and deny from the store; a forged or edited decision stays pending with a warning', async () => {
    const store = createMemoryStore();
    const a = start({ store, id: 'stored' });
    expect((await a.session.run()).status).toBe('awaiting-approval');
    // Saved (as a pending checkpoint is), with the held call.
    const saved = await store.load('stored');
    expect(saved?.state).toMatchObject({ status: 'awaiting-approval' });

    // Forged: the record flipped to approved by hand, no ledger entry.
    const forged = structuredClone(saved!);
    const state = forged.state as SessionState;
    state.guards.approvals.calls[0]!.state = 'approved';
    state.guards.approvals.calls[0]!.by = 'mallory';
    await store.save(forged);
    const b = start({ store, snapshot: (await store.load('stored'))! }, approvalModel(true));
    const forgedRun = await b.session.run();
    expect(forgedRun.status).toBe('awaiting-approval');
    expect(executed).not.toContain('drop_table:users');
    expect(
      b.events.some((e) => e.type === 'warning' && e.code === 'tool-approval-unverified'),
    ).toBe(true);

    // Signed with the wrong key: refused before anything is written.
    await expect(
      approveToolCall(store, 'stored', 'c-drop', { by: 'eve', key: 'not-the-key' }),
    ).rejects.toThrow(/not the one session/);

    // Properly approved from the store, then the input edited: pending again.
    await approveToolCall(store, 'stored', 'c-drop', { by: 'dba', key: KEY });
    const edited = structuredClone((await store.load('stored'))!);
    (edited.state as SessionState).guards.approvals.calls[0]!.input = { table: 'payments' };
    await store.save(edited);
    const c = start({ store, snapshot: (await store.load('stored'))! }, approvalModel(true));
    expect((await c.session.run()).status).toBe('awaiting-approval');
    expect(executed).toEqual(['count_rows:users', 'pay:5']);
  });

  it('a denial from the store reaches the model; an approval copied to another session does not count', async () => {
    const store = createMemoryStore();
    const one = start({ store, id: 'one' });
    const two = start({ store, id: 'two' });
    await one.session.run();
    await two.session.run();
    await denyToolCall(store, 'one', 'c-drop', { by: 'dba', reason: 'no', key: KEY });
    await approveToolCall(store, 'two', 'c-drop', { by: 'dba', key: KEY });

    // Copy two's approved state and ledger into one.
    const oneSaved = structuredClone((await store.load('one'))!);
    const twoSaved = (await store.load('two'))!;
    const twoGuards = (twoSaved.state as SessionState).guards;
    Object.assign((oneSaved.state as SessionState).guards, {
      approvals: twoGuards.approvals,
      checkpoints: twoGuards.checkpoints,
    });
    await store.save(oneSaved);
    const copied = start({ store, snapshot: (await store.load('one'))! }, approvalModel(true));
    expect((await copied.session.run()).status).toBe('awaiting-approval');

    const resumed = start({ store, snapshot: twoSaved }, approvalModel(true));
    const done = await resumed.session.run();
    expect(done.status).toBe('completed');
    expect(executed.filter((e) => e === 'drop_table:users')).toHaveLength(1);
  });
});
