/**
 * Issue 48, item 7 on PostgreSQL: two servers (two stores, two pools) take messages of one
 * web chat at once; the store's revision check refuses the later as a `ChatConflictError`
 * (HTTP 409), so no message is lost, and a message while a reply runs is refused too.
 */
import {
  ChatConflictError,
  openChatSession,
  type SessionState,
  System,
  Timeline,
  toUIMessageStream,
} from '@agate/core';
import { requirePostgres, scriptedModel, startPostgres, type TestPostgres } from '@agate/testing';
import pg from 'pg';
import { createElement, Fragment } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, type PostgresStore } from './postgres-store.js';

const Chat = () =>
  createElement(Fragment, null, createElement(System, null, 'You chat.'), createElement(Timeline));
const say = (id: string, text: string) => ({
  id,
  messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text }] }],
});

async function reply(turn: Awaited<ReturnType<typeof openChatSession>>): Promise<void> {
  const reader = toUIMessageStream(turn.session, { onFinish: turn.save }).getReader();
  while (!(await reader.read()).done) {}
}

describe.skipIf(!requirePostgres('@agate/postgres chat conflict tests'))(
  'a web chat on PostgreSQL, two servers at once',
  () => {
    let server: TestPostgres;
    const pools: pg.Pool[] = [];
    let one: PostgresStore;
    let two: PostgresStore;

    beforeAll(async () => {
      server = await startPostgres();
      const schema = `chat${process.pid}`;
      for (let i = 0; i < 2; i++) {
        const pool = new pg.Pool({ connectionString: server.url });
        pool.on('error', () => {});
        pools.push(pool);
      }
      one = createPostgresStore({ pool: pools[0]! }, { schema });
      two = createPostgresStore({ pool: pools[1]! }, { schema });
    }, 60_000);

    afterAll(async () => {
      await Promise.all(pools.map((pool) => pool.end()));
      await server?.stop();
    });

    const texts = async (id: string) =>
      ((await one.load(id))?.state as SessionState | undefined)?.timeline
        ?.filter((m) => m.role === 'user')
        .map((m) => m.content);

    /**
     * The two stores, each of whose `load` waits until both have loaded: the two requests
     * read the same revision, as two servers' requests arriving together do.
     */
    function together(): [PostgresStore, PostgresStore] {
      let arrived = 0;
      let release: () => void = () => {};
      const both = new Promise<void>((resolve) => {
        release = resolve;
      });
      const gate = (store: PostgresStore): PostgresStore =>
        Object.assign(Object.create(store) as PostgresStore, {
          load: async (id: string) => {
            const loaded = await store.load(id);
            if (++arrived === 2) release();
            await both;
            return loaded;
          },
        });
      return [gate(one), gate(two)];
    }

    it('refuses the later of two messages (new chat and stored chat) as ChatConflictError', async () => {
      const model = scriptedModel(['Hello.'], { whenExhausted: 'repeat-last' });
      const refused: string[] = [];
      for (const round of [
        ['a', 'b'],
        ['c', 'd'],
      ] as const) {
        const [first, second] = together();
        const results = await Promise.allSettled([
          openChatSession(Chat(), say('pg-chat', round[0]), { model, store: first, owner: 'ana' }),
          openChatSession(Chat(), say('pg-chat', round[1]), { model, store: second, owner: 'ana' }),
        ]);
        const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
        const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
        expect(won).toHaveLength(1);
        expect(lost.map((e) => ChatConflictError.isInstance(e))).toEqual([true]);
        refused.push(round.find((text) => text !== won[0]!.userText)!);
        await reply(won[0]!);
      }
      const kept = await texts('pg-chat');
      expect(kept).toHaveLength(2);
      expect(kept).not.toContain(refused[0]);
      expect(kept).not.toContain(refused[1]);
      // Resent, the refused messages are kept too.
      for (const text of refused) {
        await reply(
          await openChatSession(Chat(), say('pg-chat', text), { model, store: two, owner: 'ana' }),
        );
      }
      expect((await texts('pg-chat'))?.sort()).toEqual(['a', 'b', 'c', 'd']);
    });

    it('refuses a message while the other server is answering one, then takes it', async () => {
      const model = scriptedModel([{ text: 'Thinking…', delayMs: 400 }, 'Next.']);
      const first = await openChatSession(Chat(), say('pg-busy', 'slow'), {
        model,
        store: one,
        owner: 'ana',
      });
      const running = reply(first);
      await expect
        .poll(async () => ((await two.load('pg-busy'))?.state as SessionState | undefined)?.status)
        .toBe('running');
      await expect(
        openChatSession(Chat(), say('pg-busy', 'meanwhile'), { model, store: two, owner: 'ana' }),
      ).rejects.toThrow(ChatConflictError);
      await running;
      await reply(
        await openChatSession(Chat(), say('pg-busy', 'meanwhile'), {
          model,
          store: two,
          owner: 'ana',
        }),
      );
      expect(await texts('pg-busy')).toEqual(['slow', 'meanwhile']);
    });
  },
);
