import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { postgresBinDir, requirePostgres, startPostgres, type TestPostgres } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// By path, not by package name: @agate/postgres depends on @agate/core.
import { createPostgresStore } from '../../../postgres/src/index.js';
import { scriptArgs } from '../__fixtures__/bundled-script.js';
import { createSnapshot } from '../entries/stores.js';
import {
  CheckpointAgent,
  checkpointModel,
} from '../families/checkpoints/__fixtures__/checkpoint-agent.js';
import {
  ApprovalAgent,
  approvalModel,
} from '../families/tool-approvals/__fixtures__/approval-agent.js';
import {
  createFileStore,
  createMemoryStore,
  createSession,
  type SessionSnapshot,
  type SessionState,
  type SessionStore,
  SnapshotError,
  StaleSessionError,
} from '../index.js';

/** Bundled once (__fixtures__/bundled-script.ts): no tsx transform at each start. */
const DECIDER = await scriptArgs(
  fileURLToPath(new URL('./__fixtures__/decider.ts', import.meta.url)),
);
/** packages/core: tsx is its devDependency (the sources through tsx, AGATE_TEST_SOURCE_CLI=1). */
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const TRIALS = 20;

let dir: string;
let pending: SessionSnapshot;
/** A session holding tool call c-drop for a person's approval. */
let held: SessionSnapshot;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agate-faults-rev-'));
  // A session waiting at checkpoint T-1, made once and copied under a new id per trial.
  const session = createSession(<CheckpointAgent />, {
    model: checkpointModel(),
    store: createMemoryStore(),
    id: 'template',
  });
  const result = await session.run();
  if (result.status !== 'awaiting-approval') throw new Error(`template ended ${result.status}`);
  pending = session.snapshot('awaiting-approval');
  const holding = createSession(<ApprovalAgent />, {
    model: approvalModel(),
    store: createMemoryStore(),
    id: 'template-call',
  });
  const heldResult = await holding.run();
  if (heldResult.status !== 'awaiting-approval')
    throw new Error(`template ended ${heldResult.status}`);
  held = holding.snapshot('awaiting-approval');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const copyAs = (id: string, of: SessionSnapshot = pending): SessionSnapshot =>
  createSnapshot(id, { ...(of.state as object), id }, 'awaiting-approval');

interface Decision {
  id: string;
  ok: boolean;
  name?: string;
  message?: string;
  decidedBy?: string;
}

/** A supervisor process deciding each session id written to its stdin. */
function startDecider(
  store: string,
  kind: 'approve' | 'reject' | 'approve-call' | 'deny-call',
  by: string,
) {
  const child: ChildProcess = spawn(process.execPath, [...DECIDER, store, kind, by], {
    cwd: PACKAGE_DIR,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines: Interface = createInterface({ input: child.stdout! });
  const waiting: Array<{ resolve: (d: Decision) => void; reject: (e: Error) => void }> = [];
  lines.on('line', (line) => waiting.shift()?.resolve(JSON.parse(line) as Decision));
  // One exit listener for every decision still waiting (not one per decision asked).
  child.once('exit', () => {
    for (const w of waiting.splice(0)) w.reject(new Error(`${kind} process exited: ${stderr}`));
  });
  return {
    decide(id: string): Promise<Decision> {
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin!.write(`${id}\n`);
      });
    },
    async stop() {
      child.stdin!.end();
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** What two racing supervisors decide on, and what the stored session must say afterwards. */
interface RaceCase {
  snapshot: () => SessionSnapshot;
  /** The approver's kind (run by `ana`) and the other's (run by `bob`). */
  kinds: ['approve', 'reject'] | ['approve-call', 'deny-call'];
  loserError: string;
  /** The decided states a loser's message may name (`already approved by ana`). */
  decided: string;
  /** The ledger kinds that are decisions. */
  decisionKinds: string[];
  expectDecided(state: SessionState, winner: string): void;
}

/** A pending checkpoint T-1: approve against reject. */
const CHECKPOINT_RACE: RaceCase = {
  snapshot: () => pending,
  kinds: ['approve', 'reject'],
  loserError: 'CheckpointNotPendingError',
  decided: 'approved|rejected',
  decisionKinds: ['approved', 'rejected'],
  expectDecided(state, winner) {
    expect(state.guards.checkpoints.records['T-1']?.state).toBe(
      winner === 'ana' ? 'approved' : 'unlocked',
    );
  },
};

/** A held tool call c-drop: approve against deny. */
const CALL_RACE: RaceCase = {
  snapshot: () => held,
  kinds: ['approve-call', 'deny-call'],
  loserError: 'ToolCallNotPendingError',
  decided: 'approved|denied',
  decisionKinds: ['tool-approved', 'tool-denied'],
  expectDecided(state, winner) {
    expect(state.guards.approvals.calls.find((r) => r.id === 'c-drop')).toMatchObject({
      state: winner === 'ana' ? 'approved' : 'denied',
      by: winner,
    });
  },
};

/** 20 trials: two processes decide the same pending decision at the same moment. */
async function race(where: string, store: SessionStore, prefix: string, what: RaceCase) {
  const approver = startDecider(where, what.kinds[0], 'ana');
  const other = startDecider(where, what.kinds[1], 'bob');
  try {
    for (let trial = 0; trial < TRIALS; trial++) {
      const id = `${prefix}-${trial}`;
      await store.save(copyAs(id, what.snapshot()));
      const [a, o] = await Promise.all([approver.decide(id), other.decide(id)]);
      expect([a.ok, o.ok].filter(Boolean), `trial ${trial}: exactly one wins`).toHaveLength(1);
      const [winner, loser] = a.ok ? ['ana', o] : ['bob', a];
      expect(loser.name).toBe(what.loserError);
      expect(loser.decidedBy).toBe(winner);
      expect(loser.message).toMatch(new RegExp(`already (${what.decided}) by ${winner}`));
      // One decision in the ledger: the winner's, and the state it leads to.
      const state = (await store.load(id))?.state as SessionState;
      const decisions = [
        ...state.guards.checkpoints.ledger,
        ...state.guards.approvals.ledger,
      ].filter((e) => what.decisionKinds.includes(e.kind));
      expect(decisions.map((e) => e.by)).toEqual([winner]);
      what.expectDecided(state, winner);
    }
  } finally {
    await Promise.all([approver.stop(), other.stop()]);
  }
}

describe('revision faults', () => {
  it('a save over a revision another writer replaced', async () => {
    const store = createFileStore(join(dir, 'stale'));
    await store.save(copyAs('s'));
    const mine = await store.load('s');
    const theirs = await store.load('s');
    await store.save(copyAs('s'), { expectedRevision: theirs!.revision! });
    const lost = store.save(createSnapshot('s', { overwritten: true }), {
      expectedRevision: mine!.revision!,
    });
    await expect(lost).rejects.toBeInstanceOf(StaleSessionError);
    await expect(lost).rejects.toThrow(/expected revision 1, found 2.*nothing was written/);
    expect((await store.load('s'))?.state).not.toHaveProperty('overwritten');
  });

  it('approve and reject racing from two processes on the file store', {
    timeout: 120_000,
  }, async () => {
    const where = join(dir, 'race');
    await race(where, createFileStore(where), 'file', CHECKPOINT_RACE);
  });

  it('approve and deny of one tool call racing from two processes on the file store', {
    timeout: 120_000,
  }, async () => {
    const where = join(dir, 'race-call');
    await race(where, createFileStore(where), 'file-call', CALL_RACE);
  });
});

describe.skipIf(!requirePostgres('Postgres fault cases'))('Postgres revision faults', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(() => server?.stop());

  it('approve and reject racing from two processes on Postgres', { timeout: 120_000 }, async () => {
    const store = createPostgresStore({ connectionString: server.url });
    try {
      await race(server.url, store, 'pg', CHECKPOINT_RACE);
    } finally {
      await store.close();
    }
  });

  it('approve and deny of one tool call racing from two processes on Postgres', {
    timeout: 120_000,
  }, async () => {
    const store = createPostgresStore({ connectionString: server.url });
    try {
      await race(server.url, store, 'pg-call', CALL_RACE);
    } finally {
      await store.close();
    }
  });

  it('a Postgres session saved in turn by two processes, one editing an old message', async () => {
    // Two stores with pools of their own: two processes, each remembering what it saved.
    const mine = createPostgresStore({ connectionString: server.url }, { schema: 'turns' });
    const theirs = createPostgresStore({ connectionString: server.url }, { schema: 'turns' });
    const message = (i: number) => Object.freeze({ role: 'assistant', content: `m${i}` });
    const running = (messages: readonly object[], signatures: string[]) =>
      createSnapshot(
        'turns',
        Object.freeze({
          id: 'turns',
          status: 'running',
          timeline: Object.freeze([...messages]),
          guards: Object.freeze({
            continue: Object.freeze({ callSignatures: Object.freeze(signatures) }),
          }),
        }),
        undefined,
        { shareFrozen: true },
      );
    const stored = async () =>
      (await theirs.load('turns'))?.state as {
        timeline: unknown[];
        guards: { continue: { callSignatures: string[] } };
      };
    try {
      const messages = Array.from({ length: 60 }, (_, i) => message(i));
      await mine.save(running(messages.slice(0, 40), ['a']));
      // The other process rewrites message 10 (same length, same last messages) and goes on.
      const edited = messages.slice(0, 41);
      edited[10] = message(1010);
      await theirs.save(running(edited, ['a', 'b']));
      expect((await stored()).timeline).toEqual(edited);
      // This one goes on from its own last save, without revisions: last write wins, whole.
      await mine.save(running(messages.slice(0, 42), ['a', 'c']));
      let state = await stored();
      expect(state.timeline).toEqual(messages.slice(0, 42));
      expect(state.guards.continue.callSignatures).toEqual(['a', 'c']);
      // And the other way round, trimmed at the front meanwhile.
      await theirs.save(running([...edited.slice(5), message(99)], ['b', 'd']));
      state = await stored();
      expect(state.timeline).toEqual([...edited.slice(5), message(99)]);
      expect(state.guards.continue.callSignatures).toEqual(['b', 'd']);
    } finally {
      await mine.close();
      await theirs.close();
    }
  });

  // A server of its own, which the test can restart (never the one DATABASE_URL names).
  it('Postgres restarted mid-save', {
    timeout: 60_000,
    skip: postgresBinDir() === undefined,
  }, async () => {
    const server = await startPostgres({ private: true });
    const store = createPostgresStore({ connectionString: server.url }, { schema: 'restart' });
    const snapshot = (n: number) =>
      createSnapshot('restarted', {
        id: 'restarted',
        status: 'running',
        timeline: Array.from({ length: n }, (_, i) => ({ role: 'user', content: `m${i}` })),
      });
    try {
      let saved = 0;
      let revision = 0;
      const failures: unknown[] = [];
      const restarted = server.restart({ downForMs: 300 });
      let restartDone = false;
      void restarted.then(() => {
        restartDone = true;
      });
      // Saves go on through the restart: each either commits or fails with a typed error.
      for (let n = 1; !restartDone || saved < n - 5 || n < 10; n++) {
        try {
          await store.save(snapshot(n), { expectedRevision: revision });
          revision++;
          saved = n;
        } catch (error) {
          failures.push(error);
          // A lost connection may have committed: the stored revision says which.
          if (error instanceof StaleSessionError) revision = error.actualRevision;
          await new Promise((r) => setTimeout(r, 50));
        }
        if (n > 500) throw new Error('saves did not resume after the restart');
      }
      await restarted;
      expect(failures.length).toBeGreaterThan(0);
      for (const failure of failures) {
        expect(failure instanceof SnapshotError || failure instanceof StaleSessionError).toBe(true);
      }
      expect(String((failures[0] as Error).message)).toMatch(/PostgreSQL|revision/);
      // Nothing lost: the last save that returned is what is stored, whole.
      const loaded = await store.load('restarted');
      expect(loaded?.revision).toBe(revision);
      expect((loaded!.state as { timeline: unknown[] }).timeline).toHaveLength(saved);
    } finally {
      await store.close();
      await server.stop();
    }
  });
});
