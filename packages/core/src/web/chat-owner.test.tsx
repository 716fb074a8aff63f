/**
 * Issue 48, items 6 and 7: a web chat belongs to its owner (another user naming its id reads,
 * adds and decides nothing), and two requests of one chat at once never lose a message (the
 * later is refused as a conflict before anything of it is written).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModel } from '@agate/testing';
import type { ModelMessage } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ChatConflictError,
  ChatOwnerError,
  ChatRequestError,
  createFileStore,
  createMemoryStore,
  openChatSession,
  type SessionState,
  type SessionStore,
  System,
  Timeline,
  Tool,
  toUIMessageStream,
} from '../index.js';

const transfers: string[] = [];

function Bank() {
  return (
    <>
      <System>You move money when asked.</System>
      <Timeline />
      <Tool
        name="transfer"
        description="Transfers money."
        input={z.object({ to: z.string(), amount: z.number() })}
        needsApproval
        execute={({ to, amount }) => {
          transfers.push(`${amount} to ${to}`);
          return 'done';
        }}
      />
    </>
  );
}

const say = (id: string, text: string) => ({
  id,
  messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text }] }],
});
/** What useChat sends after addToolApprovalResponse (only the parts openChatSession reads). */
const answer = (id: string, callId: string, approved: boolean, reason?: string) => ({
  id,
  messages: [
    {
      id: 'a',
      role: 'assistant',
      parts: [
        {
          type: 'tool-transfer',
          toolCallId: callId,
          state: 'approval-responded',
          approval: { id: callId, approved, ...(reason !== undefined ? { reason } : {}) },
        },
      ],
    },
  ],
});

/** Drains a turn's stream: the run and its save. */
async function reply(turn: Awaited<ReturnType<typeof openChatSession>>): Promise<void> {
  const reader = toUIMessageStream(turn.session, { onFinish: turn.save }).getReader();
  while (!(await reader.read()).done) {}
}

const texts = (timeline: readonly ModelMessage[]) =>
  timeline.filter((m) => m.role === 'user').map((m) => m.content);

async function stored(store: SessionStore, id: string) {
  const snapshot = await store.load(id);
  return { revision: snapshot?.revision, state: snapshot?.state as SessionState };
}

/** alice's chat, its transfer held for approval. */
async function alicesHeldTransfer(store: SessionStore) {
  const model = scriptedModel([
    { toolCalls: [{ toolCallId: 't-1', toolName: 'transfer', input: { to: 'x', amount: 900 } }] },
    'Sent.',
  ]);
  const turn = await openChatSession(<Bank />, say('alice-chat', 'Pay rent.'), {
    model,
    store,
    owner: 'alice',
  });
  await reply(turn);
  expect((await stored(store, 'alice-chat')).state.status).toBe('awaiting-approval');
  return model;
}

describe('a web chat has an owner', () => {
  it('is recorded when the chat is created; another owner is refused before anything is read or decided', async () => {
    const store = createMemoryStore();
    const model = await alicesHeldTransfer(store);
    const before = await stored(store, 'alice-chat');
    expect(before.state.owner).toBe('alice');

    // bob names alice's chat id: his message, his approval (signed by him), anything.
    for (const [body, toolApprovals] of [
      [say('alice-chat', 'What did alice say?'), undefined],
      [answer('alice-chat', 't-1', true), { by: 'bob' }],
    ] as const) {
      const refused = openChatSession(<Bank />, body, {
        model,
        store,
        owner: 'bob',
        ...(toolApprovals !== undefined ? { toolApprovals } : {}),
      });
      await expect(refused).rejects.toThrow(ChatOwnerError);
      await expect(refused).rejects.toThrow(/belongs to someone else/);
    }
    // The server names alice's chat as hers, but bob decides: not the owner, not an approver.
    await expect(
      openChatSession(<Bank />, answer('alice-chat', 't-1', true), {
        model,
        store,
        owner: 'alice',
        toolApprovals: { by: 'bob' },
      }),
    ).rejects.toThrow(/"bob" may not decide the held calls of chat "alice-chat"/);
    expect(await stored(store, 'alice-chat')).toEqual(before);
    expect(transfers).toEqual([]);
    expect(model.calls).toHaveLength(1);

    // A reviewer listed in `approvers` may; the ledger says who.
    const reviewed = await openChatSession(<Bank />, answer('alice-chat', 't-1', true), {
      model,
      store,
      owner: 'alice',
      approvers: ['carol'],
      toolApprovals: { by: 'carol' },
    });
    await reply(reviewed);
    expect(transfers).toEqual(['900 to x']);
    const ledger = (await stored(store, 'alice-chat')).state.guards.approvals.ledger;
    expect(ledger.find((e) => e.kind === 'tool-approved')?.by).toBe('carol');
  });

  it('needs an owner for tool approvals; an ownerless chat is not taken over, an owned one not opened without', async () => {
    const store = createMemoryStore();
    const model = scriptedModel(['Hi.', 'Hi again.'], { whenExhausted: 'repeat-last' });
    await expect(
      openChatSession(<Bank />, say('c1', 'Hi'), { model, store, toolApprovals: { by: 'ana' } }),
    ).rejects.toThrow(/needs an owner/);
    expect(await store.load('c1')).toBeUndefined();

    await reply(await openChatSession(<Bank />, say('open', 'Hi'), { model, store }));
    await expect(
      openChatSession(<Bank />, say('open', 'Mine now'), { model, store, owner: 'mallory' }),
    ).rejects.toThrow(/has no owner/);

    await reply(
      await openChatSession(<Bank />, say('owned', 'Hi'), { model, store, owner: 'ana' }),
    );
    await expect(openChatSession(<Bank />, say('owned', 'Hi'), { model, store })).rejects.toThrow(
      ChatOwnerError,
    );
    expect(texts((await stored(store, 'owned')).state.timeline)).toEqual(['Hi']);
  });

  it('refuses an owner that is not a name, and an approval reason over the bound', async () => {
    const store = createMemoryStore();
    const model = await alicesHeldTransfer(store);
    for (const owner of ['', 'a'.repeat(201), 'alice\nbob', 'alice\u202e']) {
      await expect(
        openChatSession(<Bank />, say('new-chat', 'Hi'), { model, store, owner }),
      ).rejects.toThrow(ChatOwnerError);
    }
    await expect(
      openChatSession(<Bank />, answer('alice-chat', 't-1', false, 'x'.repeat(201)), {
        model,
        store,
        owner: 'alice',
        toolApprovals: { by: 'alice' },
      }),
    ).rejects.toThrow(ChatRequestError);
    expect((await stored(store, 'alice-chat')).state.guards.approvals.calls[0]?.state).toBe(
      'pending',
    );
  });
});

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const stores: Array<[string, () => Promise<SessionStore>]> = [
  ['memory store', async () => createMemoryStore()],
  [
    'file store',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'agate-chat-conflict-'));
      dirs.push(dir);
      return createFileStore(dir);
    },
  ],
];

describe.each(stores)('two requests of one chat at once (%s)', (_, makeStore) => {
  it('first messages of a new chat: one creates it, the other is a ChatConflictError; nothing is lost', async () => {
    const store = await makeStore();
    const model = scriptedModel(['Hello.'], { whenExhausted: 'repeat-last' });
    const options = { model, store, owner: 'ana' };
    const [a, b] = await Promise.allSettled([
      openChatSession(<Bank />, say('new', 'first'), options),
      openChatSession(<Bank />, say('new', 'second'), options),
    ]);
    const won = [a, b].filter((r) => r.status === 'fulfilled');
    const lost = [a, b].filter((r) => r.status === 'rejected');
    expect([won.length, lost.length]).toEqual([1, 1]);
    expect(ChatConflictError.isInstance(lost[0]?.reason)).toBe(true);
    expect(String(lost[0]?.reason)).toMatch(/was not added; send it again/);
    // The winner's message is stored before its reply; the loser's never was.
    const winner = won[0]!.value;
    expect(texts((await stored(store, 'new')).state.timeline)).toEqual([winner.userText]);
    await reply(winner);
    // Sent again, the refused message follows.
    const other = winner.userText === 'first' ? 'second' : 'first';
    await reply(await openChatSession(<Bank />, say('new', other), options));
    expect(texts((await stored(store, 'new')).state.timeline)).toEqual([winner.userText, other]);
  });

  it('two messages to a stored chat: the later is refused, the earlier answered, both kept once resent', async () => {
    const store = await makeStore();
    const model = scriptedModel(['Hello.'], { whenExhausted: 'repeat-last' });
    const options = { model, store, owner: 'ana' };
    await reply(await openChatSession(<Bank />, say('chat', 'one'), options));
    const results = await Promise.allSettled([
      openChatSession(<Bank />, say('chat', 'two'), options),
      openChatSession(<Bank />, say('chat', 'three'), options),
    ]);
    const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(won).toHaveLength(1);
    expect(lost.map((e) => ChatConflictError.isInstance(e))).toEqual([true]);
    await reply(won[0]!);
    const state = (await stored(store, 'chat')).state;
    expect(state.status).toBe('completed');
    expect(texts(state.timeline)).toEqual(['one', won[0]!.userText]);
  });

  it('a message while a reply is running is refused (409) and the running reply is not disturbed', async () => {
    const store = await makeStore();
    const model = scriptedModel([{ text: 'Thinking…', delayMs: 400 }, 'Next.'], {
      whenExhausted: 'repeat-last',
    });
    const options = { model, store, owner: 'ana' };
    const first = await openChatSession(<Bank />, say('busy', 'slow one'), options);
    const running = reply(first);
    await expect.poll(async () => (await stored(store, 'busy')).state.status).toBe('running');
    const refused = openChatSession(<Bank />, say('busy', 'meanwhile'), options);
    await expect(refused).rejects.toThrow(ChatConflictError);
    await expect(refused).rejects.toThrow(/a reply to another message is in progress/);
    await running;
    const state = (await stored(store, 'busy')).state;
    expect([state.status, texts(state.timeline)]).toEqual(['completed', ['slow one']]);
    // Once it ended, the next message goes through.
    await reply(await openChatSession(<Bank />, say('busy', 'meanwhile'), options));
    expect(texts((await stored(store, 'busy')).state.timeline)).toEqual(['slow one', 'meanwhile']);
  });
});
