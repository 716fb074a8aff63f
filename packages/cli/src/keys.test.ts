/**
 * `agate keys new` and decisions signed with its private key, in-process through `main()`.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Checkpoint, createFileStore, createSession, System, Timeline, User } from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { createElement, Fragment } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agateInProcess } from './__fixtures__/agate-in-process.js';
import { ExitCode } from './errors.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'agate-keys-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** In this process through `main()` (the shared helper), with only `env`. */
const agate = (argv: string[], env: Record<string, string> = {}) => agateInProcess(argv, { env });

const agent = createElement(
  Fragment,
  null,
  createElement(System, null, 'You work.'),
  createElement(User, null, 'Do it.'),
  createElement(Timeline),
  createElement(Checkpoint, { id: 'T-1', task: 'Do it, then submit.' }),
);

describe('agate keys new', () => {
  it('writes a private key only its owner can read and a public key, and never overwrites them', async () => {
    const out = join(work, 'keys');
    const made = await agate(['keys', 'new', '--out', out]);
    expect(made.code).toBe(ExitCode.ok);
    expect(made.stdout).toContain('agate-approval.key  private');
    expect(made.stdout).toContain(`AGATE_APPROVAL_PUBLIC_KEY=${join(out, 'agate-approval.pub')}`);
    expect((await stat(join(out, 'agate-approval.key'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(out, 'agate-approval.key'), 'utf8')).toMatch(
      /^-----BEGIN PRIVATE KEY-----/,
    );
    expect(await readFile(join(out, 'agate-approval.pub'), 'utf8')).toMatch(
      /^-----BEGIN PUBLIC KEY-----/,
    );

    const again = await agate(['keys', 'new', '--out', out]);
    expect(again.code).toBe(ExitCode.usage);
    expect(again.stderr).toContain('already exists; agate keys new never overwrites a key');
  });

  it('approve --key-file signs a decision the run verifies with the public key; another key is refused', async () => {
    const keys = join(work, 'pair');
    const other = join(work, 'other');
    await agate(['keys', 'new', '--out', keys]);
    await agate(['keys', 'new', '--out', other]);
    const dir = join(work, 'sessions');
    const store = createFileStore(dir);
    const approvalPublicKey = join(keys, 'agate-approval.pub');
    const first = createSession(agent, {
      model: scriptedModel([
        { toolCalls: [{ toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'done' } }] },
      ]),
      id: 'kp-1',
      store,
      approvalPublicKey,
    });
    expect((await first.run()).status).toBe('awaiting-approval');

    // No key at all, or the wrong private key: refused before anything is written (exit 5).
    const unsigned = await agate(['approve', 'kp-1', 'T-1', '--by', 'ana', '--store', dir]);
    expect(unsigned.code).toBe(ExitCode.badKey);
    expect(unsigned.stderr).toContain('checks decisions with a public key');
    const wrong = await agate([
      ...['approve', 'kp-1', 'T-1', '--by', 'ana', '--store', dir],
      ...['--key-file', join(other, 'agate-approval.key')],
    ]);
    expect(wrong.code).toBe(ExitCode.badKey);
    const missing = await agate([
      ...[
        'approve',
        'kp-1',
        'T-1',
        '--by',
        'ana',
        '--store',
        dir,
        '--key-file',
        join(work, 'nope'),
      ],
    ]);
    expect(missing.code).toBe(ExitCode.badKey);
    expect(missing.stderr).toContain('Cannot read the private key file');

    // The right one, from AGATE_APPROVAL_KEY_FILE.
    const ok = await agate(['approve', 'kp-1', 'T-1', '--by', 'ana', '--store', dir], {
      AGATE_APPROVAL_KEY_FILE: join(keys, 'agate-approval.key'),
    });
    expect(ok.code).toBe(ExitCode.ok);
    expect(ok.stdout).toContain('signed with key ed25519:');
    const resumed = createSession(agent, {
      model: scriptedModel(['All done.']),
      snapshot: (await store.load('kp-1'))!,
      approvalPublicKey,
    });
    const result = await resumed.run();
    expect(result.checkpoints['T-1']).toBe('approved');
    expect(result.status).toBe('completed');
  });
});
