/**
 * Faults and attacks around the process: the real `agate run` bin in child processes, with the
 * agent of `__fixtures__/hostile-agent.tsx`. Each child costs about a second, so the cases run
 * concurrently.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptedModel } from '@agate/testing';
import { produce } from 'immer';
import { createElement } from 'react';
import { afterAll, describe, expect, it } from 'vitest';
// By path: the CLI's test fixture (this file is @agate/core's, and the CLI depends on it).
import { builtCliBin } from '../../../cli/src/__fixtures__/built-cli.js';
import {
  resolveApprovalKey,
  resolveApprovalPublicKey,
  signEntryEd25519,
  toPrivateKey,
  verifyWith,
} from '../approvals/approval-signing.js';
import { appendEntry, latestRequest } from '../approvals/decision-ledger.js';
import { SNAPSHOT_VERSION } from '../entries/stores.js';
import {
  approveCheckpoint,
  createFileStore,
  createSession,
  generateApprovalKeyPair,
  type SessionState,
} from '../index.js';
import { createSnapshot } from '../persistence/snapshot.js';
import HostileAgent from './__fixtures__/hostile-agent.js';

// The built CLI (cli/src/__fixtures__/built-cli.ts): no tsx transform of its sources at each start.
const BIN = builtCliBin();
const AGENT = fileURLToPath(new URL('./__fixtures__/hostile-agent.tsx', import.meta.url));

const dirs: string[] = [];
async function workDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agate-faults-exit-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `agate run` on the hostile agent with a script; `onOut` sees stdout as it grows. */
async function agateRun(
  cwd: string,
  turns: unknown[],
  args: string[],
  env: Record<string, string> = {},
  onOut?: (stdout: string, child: ChildProcess) => void,
): Promise<Outcome> {
  const script = join(cwd, 'script.json');
  await writeFile(script, JSON.stringify(turns));
  const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of ['AGATE_BASE_URL', 'AGATE_MODEL', 'OPENAI_API_KEY', 'AGATE_APPROVAL_KEY']) {
    delete base[name];
  }
  const child = spawn(process.execPath, [BIN, 'run', AGENT, '--scripted', script, ...args], {
    cwd,
    env: { ...base, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    onOut?.(stdout, child);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const note = { toolCalls: [{ toolName: 'save_note', input: { text: 'kept' } }] };
const tickStarted = (stdout: string, tick: number) =>
  stdout.includes(`"type":"tick:start","tick":${tick}`);
const toolCalled = (stdout: string, name: string) =>
  stdout.includes(`"type":"tool:call"`) && stdout.includes(`"toolName":"${name}"`);

/** The session `agate run` saved to the default store of `cwd`. */
async function savedState(cwd: string, id: string): Promise<SessionState | undefined> {
  const snapshot = await createFileStore(join(cwd, '.agate/sessions')).load(id);
  return snapshot?.state as SessionState | undefined;
}

describe.concurrent('agate run does not lose a run', () => {
  it('agate run on a tool that never settles, then SIGTERM', async () => {
    const cwd = await workDir();
    let sentAt = 0;
    const out = await agateRun(
      cwd,
      [note, { toolCalls: [{ toolName: 'wait_forever', input: {} }] }],
      ['--json', '--id', 'forever-1'],
      {},
      (stdout, child) => {
        if (sentAt === 0 && toolCalled(stdout, 'wait_forever')) {
          sentAt = Date.now();
          // Past the 2 s after which Node used to leave with exit code 13 and nothing saved.
          setTimeout(() => child.kill('SIGTERM'), 2_500);
        }
      },
    );
    expect(sentAt).toBeGreaterThan(0);
    expect(out.code).toBe(143);
    // The printed command carries the model flags: the script, and the turn it goes on from.
    expect(out.stderr).toContain(`continue it with: agate run ${AGENT} --scripted `);
    expect(out.stderr).toContain('--script-turn 2 --store .agate/sessions --resume forever-1');
    const last = JSON.parse(out.stdout.trimEnd().split('\n').at(-1) ?? '{}');
    expect(last).toMatchObject({ type: 'run:end', status: 'aborted' });
    // Saved to the default store with the state of the last tick end.
    expect(await savedState(cwd, 'forever-1')).toMatchObject({ tick: 1, status: 'aborted' });
  });

  /** `busy` at tick 2 with `input`, SIGINT `afterMs` into it: the run must end aborted there. */
  async function ctrlCDuringBusy(id: string, input: Record<string, number>, afterMs: number) {
    const cwd = await workDir();
    let sent = false;
    const out = await agateRun(
      cwd,
      [note, { toolCalls: [{ toolName: 'busy', input }] }, 'never reached'],
      ['--json', '--id', id],
      {},
      (stdout, child) => {
        if (!sent && tickStarted(stdout, 2)) {
          sent = true;
          setTimeout(() => child.kill('SIGINT'), afterMs);
        }
      },
    );
    expect(sent).toBe(true);
    // Handled once the tool gave the event loop back: the run is aborted, tick 2 discarded.
    expect(out.code).toBe(130);
    expect(await savedState(cwd, id)).toMatchObject({ tick: 1, status: 'aborted' });
  }

  it('Ctrl-C while a synchronous tool blocks the event loop', async () => {
    await ctrlCDuringBusy('busy-1', { ms: 1_500 }, 400);
  });

  it('Ctrl-C while a tool that first waited on I/O blocks the event loop', async () => {
    // The wait turned the event loop; the signal comes during the blocking part after it,
    // and must still land before the next model call.
    await ctrlCDuringBusy('busy-2', { ms: 1_500, waitFirstMs: 50 }, 450);
  });

  it('a second Ctrl-C exits at once', async () => {
    const cwd = await workDir();
    let sent = false;
    const out = await agateRun(
      cwd,
      [note, { toolCalls: [{ toolName: 'busy', input: { ms: 1_500 } }] }, 'never reached'],
      ['--json', '--id', 'twice-1'],
      {},
      (stdout, child) => {
        if (!sent && tickStarted(stdout, 2)) {
          sent = true;
          setTimeout(() => {
            child.kill('SIGINT');
            setTimeout(() => child.kill('SIGINT'), 100);
          }, 300);
        }
      },
    );
    expect(out.code).toBe(130);
    expect(out.stderr).toContain('session twice-1 saved as of its last tick');
    // What the last tick end held, written at once (no run:end: the process did not wait).
    expect(out.stdout).not.toContain('"type":"run:end"');
    expect(await savedState(cwd, 'twice-1')).toMatchObject({ tick: 1 });
  });
});

describe('decisions nobody inside a run can forge', () => {
  it('a tool that reads every secret it can to approve its own checkpoint', async () => {
    const cwd = await workDir();
    const keys = generateApprovalKeyPair();
    const publicPath = join(cwd, 'agate-approval.pub');
    await writeFile(publicPath, keys.publicKey);
    const lootFile = join(cwd, 'loot.json');
    const out = await agateRun(
      cwd,
      [
        { toolCalls: [{ toolName: 'harvest', input: {} }] },
        { toolCalls: [{ toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'done' } }] },
      ],
      ['--id', 'forge-1'],
      { AGATE_APPROVAL_PUBLIC_KEY: publicPath, AGATE_TEST_LOOT: lootFile },
    );
    expect(out.code).toBe(7); // awaiting approval
    const loot = JSON.parse(await readFile(lootFile, 'utf8')) as string[];
    expect(loot).toContain(publicPath);
    expect(loot).toContain(keys.publicKey);

    const store = createFileStore(join(cwd, '.agate/sessions'));
    const pending = await store.load('forge-1');
    if (pending === undefined) throw new Error('the pending session was not saved');
    const state = pending.state as SessionState;
    const request = latestRequest(state.guards.checkpoints.ledger, 'T-1');
    expect(request).toMatchObject({ kind: 'submitted', alg: 'ed25519' });

    // Every candidate, as a shared secret (HMAC) and as a private key: none verifies, by the
    // verifier the session uses and in a whole session (restore, render, a run that must stay
    // awaiting approval).
    const verifier = {
      key: resolveApprovalKey(undefined),
      publicKey: resolveApprovalPublicKey(publicPath),
    };
    let tried = 0;
    for (const [index, candidate] of loot.entries()) {
      const forgeries: SessionState[] = [];
      forgeries.push(forgedApproval(state, { key: candidate }));
      try {
        forgeries.push(forgedApproval(state, { privateKey: toPrivateKey(candidate) }));
      } catch {
        // Not a private key: nothing to sign with.
      }
      for (const forged of forgeries) {
        tried++;
        const ledger = forged.guards.checkpoints.ledger;
        const check = verifyWith(verifier, 'forge-1', ledger.at(-1)!, request!);
        expect(check.ok, `the forgery with candidate ${index} verified`).toBe(false);
      }
      for (const forged of forgeries) {
        const session = createSession(createElement(HostileAgent), {
          model: scriptedModel(['never asked']),
          snapshot: createSnapshot('forge-1', forged),
          approvalPublicKey: publicPath,
        });
        const result = await session.run();
        expect(result.checkpoints['T-1']).toBe('pending');
        expect(result.status).toBe('awaiting-approval');
        session.dispose();
      }
    }
    expect(tried).toBeGreaterThanOrEqual(loot.length);

    // The supervisor's private key, which the run never held, does verify.
    await approveCheckpoint(store, 'forge-1', 'T-1', { by: 'ana', privateKey: keys.privateKey });
    const approved = await store.load('forge-1');
    const session = createSession(createElement(HostileAgent), {
      model: scriptedModel(['All done.']),
      snapshot: approved!,
      approvalPublicKey: publicPath,
    });
    const result = await session.run();
    expect(result.checkpoints['T-1']).toBe('approved');
    expect(result.status).toBe('completed');
  });

  it('a version-1 ledger signed with a shared secret', async () => {
    const secret = 'old-shared-secret';
    const keys = generateApprovalKeyPair();
    const store = createFileStore(await workDir());
    const first = createSession(createElement(HostileAgent), {
      model: scriptedModel([
        { toolCalls: [{ toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'v1' } }] },
      ]),
      id: 'v1-session',
      approvalKey: secret,
      store,
    });
    expect((await first.run()).status).toBe('awaiting-approval');
    await approveCheckpoint(store, 'v1-session', 'T-1', { by: 'ana', key: secret });
    const snapshot = (await store.load('v1-session'))!;
    expect(snapshot.version).toBe(SNAPSHOT_VERSION);
    // With the old key beside the new public key, the past decision still verifies.
    const upgraded = createSession(createElement(HostileAgent), {
      model: scriptedModel(['Done.']),
      snapshot,
      approvalKey: secret,
      approvalPublicKey: keys.publicKey,
    });
    expect((await upgraded.run()).checkpoints['T-1']).toBe('approved');
    // With only the public key it cannot be checked, so it counts as pending.
    const withoutOldKey = createSession(createElement(HostileAgent), {
      model: scriptedModel(['Done.']),
      snapshot,
      approvalPublicKey: keys.publicKey,
    });
    const result = await withoutOldKey.run();
    expect(result.checkpoints['T-1']).toBe('pending');
    expect(result.status).toBe('awaiting-approval');
  });
});

/** The state with an approval of T-1 appended and signed as `signer` says, and T-1 marked approved. */
function forgedApproval(
  state: SessionState,
  signer: { key?: string; privateKey?: ReturnType<typeof toPrivateKey> },
): SessionState {
  return produce(state, (draft) => {
    const request = latestRequest(draft.guards.checkpoints.ledger, 'T-1')!;
    if (signer.privateKey !== undefined) {
      const entry = appendEntry(
        draft,
        {
          checkpoint: 'T-1',
          kind: 'approved',
          by: 'agent',
          tick: draft.tick,
          answers: request.seq,
        },
        { sessionId: draft.id, key: undefined },
      );
      Object.assign(entry, signEntryEd25519(signer.privateKey, draft.id, entry, request));
    } else {
      appendEntry(
        draft,
        {
          checkpoint: 'T-1',
          kind: 'approved',
          by: 'agent',
          tick: draft.tick,
          answers: request.seq,
        },
        { sessionId: draft.id, key: signer.key },
      );
    }
    draft.guards.checkpoints.records['T-1']!.state = 'approved';
    draft.status = 'idle';
  });
}
