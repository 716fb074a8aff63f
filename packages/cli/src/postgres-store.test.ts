/**
 * The CLI on a Postgres store (`--store postgres://…`): migrate, list in pages, show, and
 * decide, in process with the same core, against a real private server.
 */
import { createSession } from '@agate/core';
import { createPostgresStore } from '@agate/postgres';
import { requirePostgres, startPostgres, type TestPostgres } from '@agate/testing';
import { createElement } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agateInProcess } from './__fixtures__/agate-in-process.js';
import CheckpointAgent from './__fixtures__/checkpoint-agent.js';
import { fixture } from './__fixtures__/store-fixture.js';
import { loadScriptedModel } from './run/scripted-file.js';
import { redactPassword } from './sessions/stored-session.js';

const agate = (args: string[]) => agateInProcess(args);

describe.skipIf(!requirePostgres('CLI on a Postgres store'))(
  'agate with --store postgres://',
  () => {
    let server: TestPostgres;
    let url: string;
    beforeAll(async () => {
      server = await startPostgres();
      url = `${server.url}?schema=cli_${process.pid}`;
    }, 60_000);
    afterAll(() => server?.stop());

    it('db migrate creates the tables once', async () => {
      const first = await agate(['db', 'migrate', '--store', url]);
      expect(first).toMatchObject({ code: 0, stderr: '' });
      expect(first.stdout).toMatch(/Applied migrations 1, 2 to schema "cli_\d+"/);
      const again = await agate(['db', 'migrate', '--store', url]);
      expect(again.stdout).toMatch(/is up to date \(migration 2\)/);
      const dir = await agate(['db', 'migrate', '--store', '/nonexistent/.agate/sessions']);
      expect(dir.code).toBe(2);
      expect(dir.stderr).toMatch(/^agate: agate db migrate needs a Postgres store/);
    });

    it('lists in pages, shows, and decides; a second decision names who made the first', async () => {
      const store = createPostgresStore(
        { connectionString: server.url },
        { schema: `cli_${process.pid}` },
      );
      for (const id of ['cp-1', 'cp-2']) {
        const session = createSession(createElement(CheckpointAgent), {
          model: await loadScriptedModel(fixture('submit-then-write.json')),
          store,
          id,
        });
        expect((await session.run()).status).toBe('awaiting-approval');
      }
      await store.close();

      const all = await agate(['sessions', '--store', url]);
      expect(all.code).toBe(0);
      expect(all.stdout).toMatch(/cp-1.*awaiting-approval/);
      expect(all.stdout).toMatch(/cp-2/);
      const page = await agate([
        'sessions',
        '--store',
        url,
        '--limit',
        '1',
        '--after',
        'cp-1',
        '--json',
      ]);
      expect((JSON.parse(page.stdout) as Array<{ id: string }>).map((r) => r.id)).toEqual(['cp-2']);
      const none = await agate(['sessions', '--store', url, '--status', 'completed']);
      expect(none.stdout).toMatch(/No sessions/);

      const show = await agate(['show', 'cp-1', '--store', url]);
      expect(show.code).toBe(0);
      expect(show.stdout).toMatch(/^session cp-1\nstatus: awaiting-approval/);

      const approved = await agate(['approve', 'cp-1', 'T-1', '--by', 'ana', '--store', url]);
      expect(approved).toMatchObject({ code: 0, stderr: '' });
      const late = await agate([
        'reject',
        'cp-1',
        'T-1',
        '--by',
        'bob',
        '--feedback',
        'Again.',
        '--store',
        url,
      ]);
      expect(late.code).toBe(4);
      expect(late.stderr).toMatch(/^agate: Checkpoint "T-1" was already approved by ana at /);
    });

    it('never prints a password from the URL', () => {
      expect(redactPassword('postgres://agate:s3cret@db.example:5432/app')).toBe(
        'postgres://agate:***@db.example:5432/app',
      );
      expect(redactPassword('postgres://agate@127.0.0.1/app')).toBe(
        'postgres://agate@127.0.0.1/app',
      );
    });
  },
);
