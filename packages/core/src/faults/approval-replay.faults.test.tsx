import { scriptedModel } from '@agate/testing';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { signEntry } from '../approvals/approval-signing.js';
import {
  type AgateEvent,
  approveCheckpoint,
  approveToolCall,
  Checkpoint,
  createMemoryStore,
  createSession,
  generateApprovalKeyPair,
  MissingApprovalKeyError,
  type SessionOptions,
  type SessionState,
  SnapshotError,
  Tool,
  ToolCallNotPendingError,
} from '../index.js';
import { FaultAgent, toolOutputs } from './harness.js';

/**
 * An attacker who can write the store, against a run that holds only the public key: every
 * case starts from what a real run left in the store and edits it as a hand, a tool or another
 * process with write access would. See docs/security.md, "Approvals and the store".
 */

const PAIR = generateApprovalKeyPair();
const paid: number[] = [];

const pay = (
  <Tool
    name="pay"
    input={z.object({ cents: z.number() })}
    needsApproval
    execute={({ cents }) => {
      paid.push(cents);
      return `paid ${cents}`;
    }}
  />
);

const payCall = (id: string, cents: number) => ({
  toolCallId: id,
  toolName: 'pay',
  input: { cents },
});

type Store = ReturnType<typeof createMemoryStore>;

/** Runs the stored session `pay` on, as the host does (public key only), and what it saw. */
async function resume(
  store: Store,
  options: Partial<SessionOptions> = { approvalPublicKey: PAIR.publicKey },
  element: ReactNode = pay,
) {
  const events: AgateEvent[] = [];
  const model = scriptedModel(['Done.']);
  const session = createSession(<FaultAgent extra={element} />, {
    model,
    store,
    snapshot: (await store.load('pay'))!,
    ...options,
    onEvent: (e) => events.push(e),
  });
  const result = await session.run();
  const warnings = events.flatMap((e) => (e.type === 'warning' ? [`${e.code}: ${e.message}`] : []));
  return { result, warnings, modelCalls: model.calls.length, session };
}

/** A session `pay` whose call p-1 (500 cents) was held, approved with the private key, and ran. */
async function paidOnce(store: Store = createMemoryStore()): Promise<Store> {
  paid.length = 0;
  const first = createSession(<FaultAgent extra={pay} />, {
    id: 'pay',
    model: scriptedModel([{ toolCalls: [payCall('p-1', 500)] }]),
    store,
    approvalPublicKey: PAIR.publicKey,
  });
  expect((await first.run()).status).toBe('awaiting-approval');
  await approveToolCall(store, 'pay', 'p-1', { by: 'cfo', privateKey: PAIR.privateKey });
  expect((await resume(store)).result.status).toBe('completed');
  expect(paid).toEqual([500]);
  return store;
}

/** Edits the stored session as a writer of the store would, and saves it back. */
async function rewrite(store: Store, edit: (state: SessionState) => void): Promise<void> {
  const file = structuredClone((await store.load('pay'))!);
  edit(file.state as SessionState);
  await store.save(file);
}

/** p-1's record, as the session held it before it ran, claiming the approval. */
const approvedRecord = (state: 'approved' | 'pending' = 'approved') => ({
  id: 'p-1',
  toolName: 'pay',
  input: { cents: 500 },
  tick: 1,
  index: 0,
  state,
  ...(state === 'approved' ? { by: 'cfo' } : {}),
});

/** How many results for `id` the timeline holds. */
const resultsFor = (state: SessionState, id: string) =>
  state.timeline.flatMap((m) =>
    m.role === 'tool' ? m.content.filter((p) => 'toolCallId' in p && p.toolCallId === id) : [],
  ).length;

describe('approvals: one approval, one execution (the run holds only the public key)', () => {
  it('a used approval whose record is put back as approved in the store', async () => {
    const store = await paidOnce();
    await rewrite(store, (state) => {
      state.guards.approvals.calls = [approvedRecord()];
      state.status = 'idle';
    });
    const { result, warnings, session } = await resume(store);
    expect(paid).toEqual([500]);
    expect(result.status).toBe('completed');
    expect(warnings.join('\n')).toMatch(
      /tool-approval-spent: Tool call "p-1" is not run again: .* its approval \(ledger entry 2\) was spent when the call ran at tick 2 \(ledger entry 3\)/,
    );
    expect(resultsFor(session.state, 'p-1')).toBe(1);
  });

  it('a used approval put back as approved, with its tool-executed entry deleted from the ledger', async () => {
    const store = await paidOnce();
    await rewrite(store, (state) => {
      const { approvals } = state.guards;
      approvals.ledger = approvals.ledger.filter((e) => e.kind !== 'tool-executed');
      state.guards.approvals.calls = [approvedRecord()];
      state.status = 'idle';
    });
    const { result, warnings } = await resume(store);
    expect([result.status, paid]).toEqual(['completed', [500]]);
    expect(warnings.join('\n')).toContain('its call already has a result in the timeline');
  });

  it('a used approval put back as approved, with the call result removed from the timeline', async () => {
    const store = await paidOnce();
    await rewrite(store, (state) => {
      state.timeline = state.timeline.filter(
        (m) =>
          !(
            m.role === 'tool' && m.content.some((p) => 'toolCallId' in p && p.toolCallId === 'p-1')
          ),
      );
      state.guards.approvals.calls = [approvedRecord()];
      state.status = 'idle';
    });
    const { result, warnings, session } = await resume(store);
    expect([result.status, paid]).toEqual(['completed', [500]]);
    expect(warnings.join('\n')).toContain('was spent when the call ran at tick 2');
    // The call is answered, not run: the model reads why.
    expect(resultsFor(session.state, 'p-1')).toBe(1);
    expect(toolOutputs(session).join('\n')).toContain(
      'The call to pay was not run again: it already ran at tick 2 under its approval',
    );
  });

  it('a used approval put back as pending, for a person to approve a second time', async () => {
    const store = await paidOnce();
    await rewrite(store, (state) => {
      state.guards.approvals.calls = [approvedRecord('pending')];
      state.status = 'awaiting-approval';
    });
    const approving = approveToolCall(store, 'pay', 'p-1', {
      by: 'cfo',
      privateKey: PAIR.privateKey,
    });
    await expect(approving).rejects.toBeInstanceOf(ToolCallNotPendingError);
    await expect(approving).rejects.toThrow(
      /is executed, not pending: .* approved by cfo \(ledger entry #2\) and ran at tick 2 \(ledger entry #3\)/,
    );
    const { result, warnings } = await resume(store);
    expect([result.status, paid]).toEqual(['completed', [500]]);
    expect(warnings.join('\n')).toContain(
      'records it as pending, but its approval (ledger entry 2)',
    );
  });

  it('an approval of an earlier call, moved onto a later call with the same id', async () => {
    // Servers that number calls per response send call_0 every time.
    paid.length = 0;
    const store = createMemoryStore();
    const session = createSession(<FaultAgent extra={pay} />, {
      id: 'pay',
      model: scriptedModel([
        { toolCalls: [payCall('call_0', 500)] },
        { toolCalls: [payCall('call_0', 90_000)] },
      ]),
      store,
      approvalPublicKey: PAIR.publicKey,
    });
    expect((await session.run()).status).toBe('awaiting-approval');
    session.approveToolCall('call_0', { by: 'cfo', privateKey: PAIR.privateKey });
    expect((await session.run()).pendingApprovals.map((p) => p.input)).toEqual([{ cents: 90_000 }]);
    await rewrite(store, (state) => {
      const ledger = state.guards.approvals.ledger;
      const approval = ledger.find((e) => e.kind === 'tool-approved')!;
      const request = ledger.findLast((e) => e.kind === 'tool-approval-request')!;
      // Everything a decision names, set to the later request's.
      ledger.push({
        ...approval,
        seq: ledger.length + 1,
        answers: request.seq,
        nonce: request.nonce!,
        inputHash: request.inputHash!,
      });
      state.guards.approvals.calls[0]!.state = 'approved';
      state.status = 'idle';
    });
    const { result, warnings } = await resume(store);
    expect(result.status).toBe('awaiting-approval');
    expect(warnings.join('\n')).toContain('its signature does not match its content');
    expect(paid).toEqual([500]);
  });

  it('an approval from an earlier session saved under the same id', async () => {
    const store = await paidOnce();
    const old = structuredClone((await store.load('pay'))!.state as SessionState);
    await store.delete?.('pay');
    // The same id, the same call, the same input: a new request.
    const again = createSession(<FaultAgent extra={pay} />, {
      id: 'pay',
      model: scriptedModel([{ toolCalls: [payCall('p-1', 500)] }]),
      store,
      approvalPublicKey: PAIR.publicKey,
    });
    expect((await again.run()).status).toBe('awaiting-approval');
    await rewrite(store, (state) => {
      const approval = old.guards.approvals.ledger.find((e) => e.kind === 'tool-approved')!;
      state.guards.approvals.ledger.push({ ...approval });
      state.guards.approvals.calls[0]!.state = 'approved';
      state.status = 'idle';
    });
    const { result, warnings } = await resume(store);
    expect(result.status).toBe('awaiting-approval');
    expect(warnings.join('\n')).toContain('its signature does not match its content');
    expect(paid).toEqual([500]);
  });
});

describe('approvals: what a writer of the store can still do', () => {
  it('a store rolled back to before an approved call ran', async () => {
    // Not defended (docs/security.md): the state from before the call ran holds a valid,
    // unspent approval and nothing else remembers. What a tool can do about it: the key it
    // would give a payment provider is the same on the replay, so the provider refuses it.
    const keys: string[] = [];
    const idempotent = (
      <Tool
        name="pay"
        input={z.object({ cents: z.number() })}
        needsApproval
        execute={({ cents }, { tick, toolCallId }) => {
          keys.push(`pay:${tick}:${toolCallId}`);
          paid.push(cents);
          return `paid ${cents}`;
        }}
      />
    );
    paid.length = 0;
    const store = createMemoryStore();
    const first = createSession(<FaultAgent extra={idempotent} />, {
      id: 'pay',
      model: scriptedModel([{ toolCalls: [payCall('p-1', 500)] }]),
      store,
      approvalPublicKey: PAIR.publicKey,
    });
    expect((await first.run()).status).toBe('awaiting-approval');
    await approveToolCall(store, 'pay', 'p-1', { by: 'cfo', privateKey: PAIR.privateKey });
    const approvedNotRun = structuredClone((await store.load('pay'))!);
    expect((await resume(store, undefined, idempotent)).result.status).toBe('completed');
    const { revision: _r, ...before } = approvedNotRun;
    await store.save(before);
    expect((await resume(store, undefined, idempotent)).result.status).toBe('completed');
    expect(paid).toEqual([500, 500]);
    expect(keys).toEqual(['pay:2:p-1', 'pay:2:p-1']);
  });
});

/** A stored session `pay` with p-1 held under the key pair. */
async function heldUnderKeyPair(): Promise<Store> {
  paid.length = 0;
  const store = createMemoryStore();
  const session = createSession(<FaultAgent extra={pay} />, {
    id: 'pay',
    model: scriptedModel([{ toolCalls: [payCall('p-1', 500)] }]),
    store,
    approvalPublicKey: PAIR.publicKey,
  });
  expect((await session.run()).status).toBe('awaiting-approval');
  return store;
}

/** Writes a decision on p-1's request into the store, signed with `key` (or not at all). */
async function forgeApproval(store: Store, key?: string): Promise<void> {
  await rewrite(store, (state) => {
    const ledger = state.guards.approvals.ledger;
    const request = ledger.find((e) => e.kind === 'tool-approval-request')!;
    const decision = {
      seq: ledger.length + 1,
      checkpoint: 'p-1',
      kind: 'tool-approved' as const,
      by: 'cfo',
      at: new Date().toISOString(),
      tick: 1,
      answers: request.seq,
      toolName: 'pay',
      inputHash: request.inputHash!,
      nonce: request.nonce!,
    };
    ledger.push(key === undefined ? decision : signEntry(key, 'pay', decision, request));
    state.guards.approvals.calls[0]!.state = 'approved';
    state.guards.approvals.calls[0]!.by = 'cfo';
    state.status = 'idle';
  });
}

describe('approvals: signed stays signed', () => {
  it('a key-pair session resumed without its public key, with an unsigned approval written into the store', async () => {
    const store = await heldUnderKeyPair();
    await forgeApproval(store);
    const { result, modelCalls } = await resume(store, {});
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(MissingApprovalKeyError);
    expect(result.error).toMatchObject({ missing: 'approvalPublicKey' });
    expect(result.reason).toMatch(
      /is decided under an approval key pair \(key id ed25519:\w+, ledger entry #1\).*AGATE_APPROVAL_PUBLIC_KEY/,
    );
    expect([paid, modelCalls]).toEqual([[], 0]);
  });

  it('a key-pair session resumed with only a shared secret, and an approval signed with that secret', async () => {
    const store = await heldUnderKeyPair();
    // The secret is the run's, so a tool of the run can read it and sign with it.
    await forgeApproval(store, 'the-runs-shared-secret');
    const { result, modelCalls } = await resume(store, { approvalKey: 'the-runs-shared-secret' });
    expect(result.status).toBe('error');
    expect(result.error).toMatchObject({ missing: 'approvalPublicKey' });
    expect([paid, modelCalls]).toEqual([[], 0]);
    // With its public key the same forgery is held: a request made under a key pair is
    // answered only by a decision signed with one.
    const held = await resume(store, {
      approvalPublicKey: PAIR.publicKey,
      approvalKey: 'the-runs-shared-secret',
    });
    expect(held.result.status).toBe('awaiting-approval');
    expect(held.warnings.join('\n')).toContain('is not signed with a key pair');
    expect(paid).toEqual([]);
  });

  it('a checkpoint of a key-pair session resumed without its public key, flipped to approved', async () => {
    const store = createMemoryStore();
    const checkpoint = <Checkpoint id="T-1" task="Pay the invoice" />;
    const session = createSession(<FaultAgent extra={checkpoint} />, {
      id: 'pay',
      model: scriptedModel([
        { toolCalls: [{ toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'paid' } }] },
      ]),
      store,
      approvalPublicKey: PAIR.publicKey,
    });
    expect((await session.run()).status).toBe('awaiting-approval');
    await rewrite(store, (state) => {
      state.guards.checkpoints.records['T-1']!.state = 'approved';
      state.status = 'idle';
    });
    const { result, modelCalls } = await resume(store, {}, checkpoint);
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(MissingApprovalKeyError);
    expect(modelCalls).toBe(0);
  });

  it('a checkpoint approval from an earlier session saved under the same id', async () => {
    const store = createMemoryStore();
    const checkpoint = <Checkpoint id="T-1" task="Pay the invoice" />;
    const submit = {
      toolCalls: [{ toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'paid' } }],
    };
    const start = () =>
      createSession(<FaultAgent extra={checkpoint} />, {
        id: 'pay',
        model: scriptedModel([submit]),
        store,
        approvalPublicKey: PAIR.publicKey,
      });
    expect((await start().run()).status).toBe('awaiting-approval');
    await approveCheckpoint(store, 'pay', 'T-1', { by: 'cfo', privateKey: PAIR.privateKey });
    const old = structuredClone((await store.load('pay'))!.state as SessionState);
    await store.delete?.('pay');
    expect((await start().run()).status).toBe('awaiting-approval');
    await rewrite(store, (state) => {
      state.guards.checkpoints.ledger.push(
        old.guards.checkpoints.ledger.find((e) => e.kind === 'approved')!,
      );
      state.guards.checkpoints.records['T-1']!.state = 'approved';
      state.status = 'idle';
    });
    const { result, warnings, modelCalls } = await resume(store, undefined, checkpoint);
    expect(result.status).toBe('awaiting-approval');
    expect(result.checkpoints['T-1']).toBe('pending');
    expect(warnings.join('\n')).toContain('its signature does not match its content');
    expect(modelCalls).toBe(0);
  });
});

describe('approvals: an entry moved between the checkpoint and tool-call ledgers', () => {
  const checkpoint = <Checkpoint id="T-1" task="Pay the invoice" />;
  const both = (
    <>
      {pay}
      {checkpoint}
    </>
  );
  const submit = {
    toolCalls: [{ toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'paid' } }],
  };

  /**
   * A session with both ledgers signed: p-1 held, approved with the private key and run; then
   * T-1 submitted (pending) or, with `approveIt`, also approved and a second call p-2 held.
   */
  async function signedBoth(approveIt: boolean): Promise<Store> {
    paid.length = 0;
    const store = createMemoryStore();
    const start = (turns: Parameters<typeof scriptedModel>[0]) =>
      createSession(<FaultAgent extra={both} />, {
        id: 'pay',
        model: scriptedModel(turns),
        store,
        approvalPublicKey: PAIR.publicKey,
      });
    expect((await start([{ toolCalls: [payCall('p-1', 500)] }]).run()).status).toBe(
      'awaiting-approval',
    );
    await approveToolCall(store, 'pay', 'p-1', { by: 'cfo', privateKey: PAIR.privateKey });
    const again = (turns: Parameters<typeof scriptedModel>[0]) =>
      store.load('pay').then((snapshot) =>
        createSession(<FaultAgent extra={both} />, {
          model: scriptedModel(turns),
          store,
          snapshot: snapshot!,
          approvalPublicKey: PAIR.publicKey,
        }).run(),
      );
    expect((await again([submit])).status).toBe('awaiting-approval');
    expect(paid).toEqual([500]);
    if (approveIt) {
      await approveCheckpoint(store, 'pay', 'T-1', { by: 'cfo', privateKey: PAIR.privateKey });
      expect((await again([{ toolCalls: [payCall('p-2', 900)] }])).status).toBe(
        'awaiting-approval',
      );
    }
    return store;
  }

  it('a signed tool-call approval copied into the checkpoint ledger, made to answer the pending submission', async () => {
    const store = await signedBoth(false);
    await rewrite(store, (state) => {
      const approval = state.guards.approvals.ledger.find((e) => e.kind === 'tool-approved')!;
      const ledger = state.guards.checkpoints.ledger;
      const submission = ledger.findLast((e) => e.kind === 'submitted')!;
      ledger.push({
        ...approval,
        kind: 'approved',
        checkpoint: 'T-1',
        seq: submission.seq + 1,
        answers: submission.seq,
        nonce: submission.nonce!,
      });
      state.guards.checkpoints.records['T-1']!.state = 'approved';
      state.status = 'idle';
    });
    const { result, warnings, modelCalls } = await resume(store, undefined, both);
    expect(result.status).toBe('awaiting-approval');
    expect(result.checkpoints['T-1']).toBe('pending');
    expect(warnings.join('\n')).toContain('its signature does not match its content');
    expect(modelCalls).toBe(0);
  });

  it('a signed checkpoint approval copied into the tool-call ledger, made to answer a held call', async () => {
    const store = await signedBoth(true);
    await rewrite(store, (state) => {
      const approval = state.guards.checkpoints.ledger.find((e) => e.kind === 'approved')!;
      const ledger = state.guards.approvals.ledger;
      const request = ledger.findLast((e) => e.kind === 'tool-approval-request')!;
      ledger.push({
        ...approval,
        kind: 'tool-approved',
        checkpoint: 'p-2',
        seq: ledger.length + 1,
        answers: request.seq,
        nonce: request.nonce!,
        toolName: 'pay',
        inputHash: request.inputHash!,
      });
      state.guards.approvals.calls.find((c) => c.id === 'p-2')!.state = 'approved';
      state.status = 'idle';
    });
    const { result, warnings } = await resume(store, undefined, both);
    expect(result.status).toBe('awaiting-approval');
    expect(result.pendingApprovals.map((p) => p.id)).toEqual(['p-2']);
    expect(warnings.join('\n')).toContain('its signature does not match its content');
    expect(paid).toEqual([500]);
  });

  it('an entry copied as it is into the other ledger: the file is refused, naming the entry', async () => {
    const store = await signedBoth(true);
    const file = (await store.load('pay'))!;
    const state = structuredClone(file.state as SessionState);
    const toolApproval = state.guards.approvals.ledger.find((e) => e.kind === 'tool-approved')!;
    const cpApproval = state.guards.checkpoints.ledger.find((e) => e.kind === 'approved')!;
    const intoCheckpoints = structuredClone(state);
    (intoCheckpoints.guards.checkpoints.ledger as unknown[]).push(toolApproval);
    const intoTools = structuredClone(state);
    (intoTools.guards.approvals.ledger as unknown[]).push(cpApproval);
    for (const [edited, path] of [
      [intoCheckpoints, 'state.guards.checkpoints.ledger[2].kind'],
      [intoTools, 'state.guards.approvals.ledger[4].kind'],
    ] as const) {
      const start = () =>
        createSession(<FaultAgent extra={both} />, {
          model: scriptedModel(['Done.']),
          snapshot: { ...file, state: edited },
          approvalPublicKey: PAIR.publicKey,
        });
      expect(start).toThrow(SnapshotError);
      expect(start).toThrow(path);
    }
    expect(paid).toEqual([500]);
  });
});
