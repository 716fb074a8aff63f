/**
 * A session file written by version 2 (`__fixtures__/v2-both-ledgers.json`, made once with the
 * code of that time, see `__fixtures__/v2-agent.tsx`), whose one signed ledger holds a
 * checkpoint's entries and two held tool calls': loaded, its tool-call entries are in their own
 * ledger, renumbered, and still verify with the key; a decision made after loading and the
 * approval made before both count, and the approved call runs once.
 */
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModel } from '@agate/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SNAPSHOT_VERSION } from '../entries/stores.js';
import {
  type AgateEvent,
  createFileStore,
  createSession,
  denyToolCall,
  MissingApprovalKeyError,
  type SessionSnapshot,
  type SessionState,
  type SessionStore,
} from '../index.js';
import { V2_FIXTURE_KEY, V2Agent, v2Effects } from './__fixtures__/v2-agent.js';

const FIXTURE = join(import.meta.dirname, '__fixtures__', 'v2-both-ledgers.json');
const ID = 'v2-ledgers';

let dir: string;
let store: SessionStore;

beforeEach(async () => {
  v2Effects.length = 0;
  dir = await mkdtemp(join(tmpdir(), 'agate-v2-'));
  await copyFile(FIXTURE, join(dir, `${ID}.json`));
  store = createFileStore(dir);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the stored session with `approvalKey` (`null`: none), and the warnings it gave. */
async function resume(approvalKey: string | null = V2_FIXTURE_KEY) {
  const events: AgateEvent[] = [];
  const session = createSession(<V2Agent />, {
    model: scriptedModel(['Paid; the logs stay.']),
    store,
    snapshot: (await store.load(ID))!,
    ...(approvalKey !== null ? { approvalKey } : {}),
    onEvent: (e) => events.push(e),
  });
  const result = await session.run();
  const warnings = events.flatMap((e) => (e.type === 'warning' ? [`${e.code}: ${e.message}`] : []));
  return { result, warnings, session };
}

async function edit(change: (state: SessionState) => void): Promise<void> {
  const file = structuredClone((await store.load(ID))!);
  change(file.state as SessionState);
  await store.save(file);
}

describe('a version-2 session file with checkpoint and tool-call entries in one ledger', () => {
  it('loads with each kind in its own ledger, renumbered, keeping what each was signed as', async () => {
    const written = JSON.parse(readFileSync(FIXTURE, 'utf8')) as SessionSnapshot;
    expect(written.version).toBe(2);
    const loaded = (await store.load(ID))!;
    expect(loaded.version).toBe(SNAPSHOT_VERSION);
    const { checkpoints, approvals } = (loaded.state as SessionState).guards;
    expect(checkpoints.ledger.map((e) => [e.seq, e.kind, e.answers])).toEqual([
      [1, 'submitted', undefined],
      [2, 'approved', 1],
    ]);
    expect(approvals.ledger.map((e) => [e.seq, e.kind, e.checkpoint, e.answers])).toEqual([
      [1, 'tool-approval-request', 'pay-1', undefined],
      [2, 'tool-approval-request', 'drop-1', undefined],
      [3, 'tool-approved', 'pay-1', 1],
    ]);
    expect(approvals.ledger.map((e) => e.signedAs)).toEqual([
      { ledger: 'checkpoints', seq: 3 },
      { ledger: 'checkpoints', seq: 4 },
      { ledger: 'checkpoints', seq: 5, answers: 3 },
    ]);
    expect(approvals.ledger.every((e) => /^[0-9a-f]{64}$/.test(e.signature ?? ''))).toBe(true);
  });

  it('a denial made after loading and the approval made before both count: the approved call runs once', async () => {
    const denial = await denyToolCall(store, ID, 'drop-1', {
      by: 'dba',
      reason: 'keep the logs',
      key: V2_FIXTURE_KEY,
    });
    // Numbered in the tool-call ledger, answering the migrated request by its new number.
    expect(denial).toMatchObject({ seq: 4, kind: 'tool-denied', answers: 2 });
    expect(denial.signedAs).toBeUndefined();

    const { result, warnings } = await resume();
    expect(warnings).toEqual([]);
    expect(result.status).toBe('completed');
    expect(result.checkpoints).toEqual({ 'T-1': 'approved' });
    expect(v2Effects).toEqual(['paid 500']);
    expect(result.toolCallLedger.map((e) => [e.seq, e.kind, e.checkpoint])).toEqual([
      [1, 'tool-approval-request', 'pay-1'],
      [2, 'tool-approval-request', 'drop-1'],
      [3, 'tool-approved', 'pay-1'],
      [4, 'tool-denied', 'drop-1'],
      [5, 'tool-executed', 'pay-1'],
    ]);
    expect(result.checkpointLedger.map((e) => e.kind)).toEqual(['submitted', 'approved']);
    // Written back as version 3: the split ledgers, not the shared one.
    const file = JSON.parse(await readFile(join(dir, `${ID}.json`), 'utf8'));
    expect(file.version).toBe(SNAPSHOT_VERSION);
    expect(file.state.guards.checkpoints.ledger).toHaveLength(2);
    expect(file.state.guards.approvals.ledger).toHaveLength(5);
  });

  it('signed stays signed: without the key the migrated ledger is refused, not read unsigned', async () => {
    await denyToolCall(store, ID, 'drop-1', { by: 'dba', reason: 'no', key: V2_FIXTURE_KEY });
    const { result } = await resume(null);
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(MissingApprovalKeyError);
    expect(v2Effects).toEqual([]);
  });

  it('a migrated approval whose signedAs is edited, or that answers a request written since, does not count', async () => {
    await edit((state) => {
      const approval = state.guards.approvals.ledger.find((e) => e.kind === 'tool-approved')!;
      approval.signedAs = { ledger: 'checkpoints', seq: 5, answers: 4 };
    });
    const edited = await resume();
    expect(edited.result.status).toBe('awaiting-approval');
    expect(edited.warnings.join('\n')).toContain('its signature does not match its content');
    expect(v2Effects).toEqual([]);

    // The migrated request replaced by a new one for the same call: the old approval answers
    // a request with no version-2 form, so it cannot have been signed for it.
    await copyFile(FIXTURE, join(dir, `${ID}.json`));
    await edit((state) => {
      const request = state.guards.approvals.ledger[0]!;
      delete request.signedAs;
    });
    const replaced = await resume();
    expect(replaced.result.status).toBe('awaiting-approval');
    expect(replaced.warnings.join('\n')).toContain('answers an entry written since');
    expect(v2Effects).toEqual([]);
  });
});
