/**
 * Stored sessions for the CLI's tests, made in-process with the core the CLI uses: a completed
 * run and a restore point of it, sessions waiting at checkpoint T-1 (unsigned and signed), one
 * already approved, and two damaged files.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  approveCheckpoint,
  createFileStore,
  createSession,
  type SessionOptions,
} from '@agate/core';
import { createElement, type ReactElement } from 'react';
import { loadScriptedModel } from '../run/scripted-file.js';
import CheckpointAgent from './checkpoint-agent.js';
import NotesAgent from './notes-agent.js';

export const APPROVAL_KEY = 'the-supervisors-key';
export const WAITING = ['cp-approve', 'cp-reject', 'cp-errors'] as const;

export const fixture = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));

async function runInto(
  dir: string,
  element: ReactElement,
  script: string,
  options: Partial<SessionOptions> & { id: string },
) {
  const session = createSession(element, {
    model: await loadScriptedModel(fixture(script)),
    store: createFileStore(dir),
    ...options,
  });
  const result = await session.run();
  return { session, result };
}

export async function buildFixtureStore(dir: string): Promise<void> {
  const store = createFileStore(dir);
  const done = await runInto(dir, createElement(NotesAgent), 'finish-early.json', { id: 'done-1' });
  if (done.result.status !== 'completed') throw new Error(`done-1 ended ${done.result.status}`);
  await store.save(done.session.snapshot('completed'));
  await store.saveRestorePoint!('done-1', 2, done.session.snapshot('checkpoint at step 2, tick 2'));
  for (const id of [...WAITING, 'cp-approved']) {
    const { result } = await runInto(
      dir,
      createElement(CheckpointAgent),
      'submit-then-write.json',
      {
        id,
      },
    );
    if (result.status !== 'awaiting-approval') throw new Error(`${id} ended ${result.status}`);
  }
  await approveCheckpoint(store, 'cp-approved', 'T-1', { by: 'ana' });
  const signed = await runInto(dir, createElement(CheckpointAgent), 'submit-then-write.json', {
    id: 'cp-signed',
    approvalKey: APPROVAL_KEY,
  });
  if (signed.result.checkpointLedger[0]?.signature === undefined) throw new Error('unsigned');
  // Damaged files: cut in half, and a valid snapshot around a state that is not a session's.
  const text = await readFile(join(dir, 'done-1.json'), 'utf8');
  await writeFile(join(dir, 'broken.json'), text.slice(0, text.length / 2));
  const wrong = JSON.parse(text) as { id: string; state: Record<string, unknown> };
  wrong.id = 'bad-state';
  wrong.state = { id: 'bad-state', tick: -1 };
  await writeFile(join(dir, 'bad-state.json'), JSON.stringify(wrong));
}
