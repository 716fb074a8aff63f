import { fileURLToPath } from 'node:url';
import { createClient } from '@agate/dbos';
import { requirePostgres, startPostgres, type TestPostgres } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideCommand } from './commands/decide.js';
import { workerCommand } from './commands/worker.js';
import type { CliIo } from './io.js';

const AGENTS = fileURLToPath(new URL('./__fixtures__/durable-agents.tsx', import.meta.url));

function testIo(env: Record<string, string> = {}): CliIo & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out: (text: string) => {
      io.stdout += text;
    },
    err: (text: string) => {
      io.stderr += text;
    },
    env,
    isTTY: false,
    onInterrupt: () => () => {},
  };
  return io;
}

describe('agate worker', () => {
  it('needs a postgres:// store', async () => {
    const io = testIo();
    expect(await workerCommand(io, AGENTS, { store: '.agate/sessions' })).toBe(2);
    expect(io.stderr).toMatch(/^agate worker: needs the runs database: --store postgres:\/\/.*\n$/);
  });

  describe.skipIf(!requirePostgres('agate worker (@agate/dbos)'))('on PostgreSQL', () => {
    let pg: TestPostgres;
    beforeAll(async () => {
      pg = await startPostgres();
    }, 30_000);
    afterAll(async () => {
      await pg?.stop();
    });

    it('runs the agents file’s agents until stopped', async () => {
      const io = testIo();
      let stop = () => {};
      const stopped = new Promise<void>((resolve) => {
        stop = resolve;
      });
      const exit = workerCommand(io, AGENTS, { store: pg.url, executorId: 'cli-test' }, stopped);
      const client = await createClient({ databaseUrl: pg.url });
      try {
        const handle = await client.startRun({
          agent: 'greeter',
          sessionId: 'greet-1',
          input: { name: 'Ada' },
        });
        const result = await handle.result({ timeoutMs: 30_000 });
        expect(result).toMatchObject({ status: 'completed', text: 'Hello!' });
      } finally {
        stop();
        await client.close();
      }
      expect(await exit).toBe(0);
      expect(io.stdout).toContain('agate worker cli-test: running greeter');
    }, 60_000);

    it('`agate approve <session> <callId> --store postgres://…` wakes the durable run that waits for it', async () => {
      let stop = () => {};
      const stopped = new Promise<void>((resolve) => {
        stop = resolve;
      });
      const exit = workerCommand(testIo(), AGENTS, { store: pg.url }, stopped);
      const client = await createClient({ databaseUrl: pg.url });
      try {
        const handle = await client.startRun({
          agent: 'dropper',
          sessionId: 'drop-1',
          input: null,
        });
        while ((await handle.status()) !== 'awaiting-approval') {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const io = testIo();
        expect(
          await decideCommand(io, 'approve', 'drop-1', 'c-drop', { store: pg.url, by: 'ada' }),
        ).toBe(0);
        expect(io.stdout).toContain('c-drop');
        const result = await handle.result({ timeoutMs: 30_000 });
        expect(result).toMatchObject({ status: 'completed', text: 'Dropped.' });
        expect(
          result.toolCallLedger.filter((e) => e.kind === 'tool-approved').map((e) => e.by),
        ).toEqual(['ada']);
      } finally {
        stop();
        await client.close();
      }
      expect(await exit).toBe(0);
    }, 60_000);

    it('AGATE_APPROVAL_KEY reaches the runs: a decision signed with another key is refused, one with it goes through', async () => {
      let stop = () => {};
      const stopped = new Promise<void>((resolve) => {
        stop = resolve;
      });
      const key = { AGATE_APPROVAL_KEY: 'the-shared-key' };
      const exit = workerCommand(testIo(key), AGENTS, { store: pg.url }, stopped);
      const client = await createClient({ databaseUrl: pg.url });
      try {
        const handle = await client.startRun({
          agent: 'dropper',
          sessionId: 'signed-1',
          input: null,
        });
        while ((await handle.status()) !== 'awaiting-approval') {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const decide = (env: Record<string, string>) =>
          decideCommand(testIo(env), 'approve', 'signed-1', 'c-drop', { store: pg.url, by: 'ada' });
        // The run signed its request with the worker's key: another key does not match it.
        await expect(decide({ AGATE_APPROVAL_KEY: 'another-key' })).rejects.toMatchObject({
          exitCode: 5,
        });
        expect(await decide(key)).toBe(0);
        const result = await handle.result({ timeoutMs: 30_000 });
        expect(result).toMatchObject({ status: 'completed', text: 'Dropped.' });
        const approved = result.toolCallLedger.filter((e) => e.kind === 'tool-approved');
        expect(approved.map((e) => [e.by, typeof e.signature])).toEqual([['ada', 'string']]);
      } finally {
        stop();
        await client.close();
      }
      expect(await exit).toBe(0);
    }, 60_000);
  });
});
