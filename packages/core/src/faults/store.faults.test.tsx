import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModel } from '@agate/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ContinueGate,
  createFileStore,
  createSession,
  type SessionStore,
  SnapshotError,
} from '../index.js';
import { FaultAgent, step, watch } from './harness.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agate-faults-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A file store whose `save` fails the first `failures` times, as a full disk would. */
function failingStore(failures: number): SessionStore {
  const store = createFileStore(dir);
  let left = failures;
  return {
    ...store,
    save: async (snapshot) => {
      if (left-- > 0) throw new Error('EIO: i/o error, write');
      return store.save(snapshot);
    },
    saveRestorePoint: async (sessionId, tick, snapshot) => {
      if (left-- > 0) throw new Error('EIO: i/o error, write');
      return store.saveRestorePoint!(sessionId, tick, snapshot);
    },
  };
}

/** An agent that checkpoints every step to the store. */
const checkpointing = <FaultAgent extra={<ContinueGate checkpointIntervalSteps={1} />} />;

describe('store faults', () => {
  it('a store whose save rejects at a checkpoint', async () => {
    const model = scriptedModel([step(1), step(2), 'Done.']);
    const store = failingStore(1);
    const session = createSession(checkpointing, { model, store, id: 'ckpt' });
    const w = watch(session);

    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe('Tick 2, store: EIO: i/o error, write');
    expect(failed.error).toMatchObject({ tick: 2, step: 'store' });
    w.expectStateAfterTick(1);
    // Nothing half-written: no checkpoint file, no temp file.
    expect(await readdir(dir)).toEqual([]);

    const again = await session.run();
    expect(again.status).toBe('completed');
    expect((await readdir(join(dir, '.restore-points', 'ckpt'))).sort()).toEqual([
      'tick-1.json',
      'tick-2.json',
    ]);
  });

  it('a store whose save rejects when the run pauses', async () => {
    const model = scriptedModel([step(1), step(1), 'Done.']);
    const session = createSession(<FaultAgent extra={<ContinueGate />} />, {
      model,
      store: failingStore(1),
      id: 'paused',
    });
    const w = watch(session);
    const paused = await session.run();
    expect(paused.status).toBe('paused');
    expect(paused.reason).toMatch(
      /Call run\(\) to resume\. Saving the paused session to the store failed: EIO: i\/o error, write$/,
    );
    expect(w.ofType('warning').map((e) => e.code)).toEqual(['pause-save-failed']);
    expect(await readdir(dir)).toEqual([]);
    // Still resumable in this process, and the next pause-free run completes.
    expect((await session.run()).status).toBe('completed');
  });

  it('a corrupted snapshot file', async () => {
    await damagedFileCase((text) => text.replace('"timeline"', '"time\u0000line'));
  });

  it('a truncated snapshot file', async () => {
    await damagedFileCase((text) => text.slice(0, Math.floor(text.length / 2)));
  });
});

/** Saves a session, damages its file, and checks what is left and that the work goes on. */
async function damagedFileCase(damage: (text: string) => string) {
  const store = createFileStore(dir);
  const model = scriptedModel([step(1), step(2)]);
  const first = createSession(checkpointing, { model, store, id: 'disk' });
  expect((await first.run({ maxTicks: 2 })).status).toBe('max-ticks');
  await store.save(first.snapshot('after tick 2'));
  first.dispose();

  const file = join(dir, 'disk.json');
  await writeFile(file, damage(await readFile(file, 'utf8')));

  const error = await store.load('disk').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SnapshotError);
  expect((error as SnapshotError).message).toContain(
    `Session snapshot ${file} is truncated or corrupt`,
  );
  // The damage is confined to that file: the checkpoints still load, and list() shows them.
  expect((await store.listRestorePoints!()).map((s) => s.ref)).toEqual(['disk@tick-1']);
  const checkpoint = await store.loadRestorePoint!('disk', 1);
  expect(checkpoint?.state).toMatchObject({ tick: 1 });

  // Resume from the checkpoint: run() continues, and its save replaces the damaged file.
  const resumed = createSession(checkpointing, {
    model: scriptedModel([step(2), 'Done.']),
    store,
    snapshot: checkpoint as NonNullable<typeof checkpoint>,
  });
  expect((await resumed.run()).status).toBe('completed');
  expect(resumed.state.tick).toBe(3);
  await store.save(resumed.snapshot());
  expect((await store.load('disk'))?.state).toMatchObject({ tick: 3, status: 'completed' });
  expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
}
