/**
 * The commands in-process through `main()` (the same code the bin runs), for the paths that
 * need no separate process: options, error messages and exit codes.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileStore, type SessionState } from '@agate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agateInProcess } from './__fixtures__/agate-in-process.js';
import { APPROVAL_KEY, buildFixtureStore, fixture } from './__fixtures__/store-fixture.js';
import { ExitCode } from './errors.js';

let work: string;
let store: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'agate-program-'));
  store = join(work, 'sessions');
  await buildFixtureStore(store);
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** In this process through `main()` (the shared helper), with only `env`. */
const agate = (argv: string[], env: Record<string, string> = {}) => agateInProcess(argv, { env });

async function files(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  // Recursive: restore points live in a folder of their own inside the store.
  const entries = await readdir(store, { recursive: true, withFileTypes: true });
  const names = entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(store.length + 1));
  for (const name of names.sort()) {
    out[name] = await readFile(join(store, name), 'utf8');
  }
  return out;
}

describe('sessions and show', () => {
  it('lists restore points too with --all, as JSON with --json', async () => {
    const out = await agate(['sessions', '--store', store, '--all', '--json']);
    expect(out.code).toBe(0);
    const rows = JSON.parse(out.stdout) as Array<{ id: string; kind: string; sessionId: string }>;
    expect(rows.map((r) => r.id).sort()).toEqual([
      'cp-approve',
      'cp-approved',
      'cp-errors',
      'cp-reject',
      'cp-signed',
      'done-1',
      'done-1@tick-2',
    ]);
    expect(rows.find((r) => r.id === 'done-1@tick-2')).toMatchObject({
      kind: 'restore-point',
      sessionId: 'done-1',
    });
  });

  it('says so when the store is empty or not there yet', async () => {
    const out = await agate(['sessions', '--store', join(work, 'none')]);
    expect(out).toEqual({ code: 0, stdout: `No sessions in ${join(work, 'none')}.\n`, stderr: '' });
  });

  it('shows a restore point as one', async () => {
    const out = await agate(['show', 'done-1@tick-2', '--store', store]);
    expect(out.code).toBe(0);
    expect(out.stdout.split('\n')[0]).toBe('restore point done-1@tick-2 of session done-1');
  });

  it('refuses a file whose state is not a session state, and an id that cannot name a file', async () => {
    const bad = await agate(['show', 'bad-state', '--store', store]);
    expect(bad.code).toBe(ExitCode.corrupt);
    expect(bad.stderr).toMatch(
      /^agate: Session "bad-state" in .* cannot be read: .*state\.tick must be a whole number >= 0/,
    );
    const id = await agate(['show', '../etc/passwd', '--store', store]);
    expect(id.code).toBe(ExitCode.usage);
    expect(id.stderr).toContain('Invalid session id "../etc/passwd"');
  });

  it('rejects a bad --messages value and an unknown command as usage errors', async () => {
    const messages = await agate(['show', 'done-1', '--store', store, '--messages', 'many']);
    expect(messages.code).toBe(ExitCode.usage);
    expect(messages.stderr).toContain("option '--messages <n>' argument 'many' is invalid");
    const unknown = await agate(['sesions']);
    expect(unknown.code).toBe(ExitCode.usage);
    expect(unknown.stderr).toContain("unknown command 'sesions'");
  });
});

describe('approve and reject', () => {
  it('refuses a session without checkpoints, a missing key, a blank name and missing feedback; nothing changes', async () => {
    const before = await files();
    const none = await agate(['approve', 'done-1', 'T-1', '--by', 'ana', '--store', store]);
    expect(none.code).toBe(ExitCode.notFound);
    expect(none.stderr).toBe(
      'agate: Session "done-1" has no checkpoint "T-1". It has no checkpoints yet.\n',
    );
    const noKey = await agate(['approve', 'cp-signed', 'T-1', '--by', 'ana', '--store', store]);
    expect(noKey.code).toBe(ExitCode.badKey);
    expect(noKey.stderr).toContain('signs its checkpoint ledger (key id ');
    const blank = await agate(['approve', 'cp-errors', 'T-1', '--by', ' ', '--store', store]);
    expect(blank.code).toBe(ExitCode.usage);
    expect(blank.stderr).toContain('`by` must be a non-empty name');
    const feedback = await agate(['reject', 'cp-errors', 'T-1', '--by', 'ana', '--store', store]);
    expect(feedback.code).toBe(ExitCode.usage);
    expect(feedback.stderr).toContain("required option '--feedback <text>' not specified");
    expect(await files()).toEqual(before);
  });

  it('signs with AGATE_APPROVAL_KEY when it is set', async () => {
    const out = await agate(['approve', 'cp-signed', 'T-1', '--by', 'ana', '--store', store], {
      AGATE_APPROVAL_KEY: APPROVAL_KEY,
    });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/by ana \(ledger entry #2, signed with key [0-9a-f]{16}\)/);
    const state = (await createFileStore(store).load('cp-signed'))?.state as SessionState;
    expect(state.guards.checkpoints.ledger.at(-1)).toMatchObject({
      kind: 'approved',
      signature: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });
});

describe('run: what is wrong before the agent starts', () => {
  it('names the problem and exits 2 (usage) or 3 (unknown session)', async () => {
    const badScript = join(work, 'bad-script.json');
    await writeFile(badScript, JSON.stringify([{ txt: 'typo' }]));
    const notJson = join(work, 'not-json.json');
    await writeFile(notJson, '[{"text":');
    const agent = fixture('notes-agent.tsx');

    const halfEnv = await agate(['run', agent], { AGATE_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(halfEnv.code).toBe(ExitCode.usage);
    expect(halfEnv.stderr).toContain(
      'AGATE_BASE_URL is set (http://127.0.0.1:9/v1) but AGATE_MODEL is not',
    );

    const script = await agate(['run', agent, '--scripted', badScript]);
    expect(script.code).toBe(ExitCode.usage);
    expect(script.stderr).toContain(`agate: The script ${badScript} is not a list of model turns:`);
    expect(script.stderr).toContain('Each turn is a string (the reply text) or { text?,');

    const json = await agate(['run', agent, '--scripted', notJson]);
    expect(json.code).toBe(ExitCode.usage);
    expect(json.stderr).toContain(`The script ${notJson} is not valid JSON`);

    const missing = await agate(['run', join(work, 'no-agent.tsx'), '--scripted', badScript]);
    expect(missing.code).toBe(ExitCode.usage);
    expect(missing.stderr).toContain('no-agent.tsx not found');

    const resume = await agate([
      'run',
      agent,
      '--scripted',
      fixture('finish.json'),
      '--store',
      store,
      '--resume',
      'nope',
    ]);
    expect(resume.code).toBe(ExitCode.notFound);
    expect(resume.stderr).toContain(`No session "nope" in ${store}`);

    const badId = await agate(['run', agent, '--scripted', fixture('finish.json'), '--id', '../x']);
    expect(badId.code).toBe(ExitCode.usage);
    expect(badId.stderr).toContain('Invalid session id "../x"');

    const maxTicks = await agate(['run', agent, '--max-ticks', '0']);
    expect(maxTicks.code).toBe(ExitCode.usage);
    expect(maxTicks.stderr).toContain("option '--max-ticks <n>' argument '0' is invalid");

    for (const outcome of [halfEnv, script, json, missing, resume, badId]) {
      expect(outcome.stdout).toBe('');
    }
  });

  it('refuses an agent file whose default export is not an agent', async () => {
    const file = join(fixture('.'), 'not-an-agent.ts');
    const out = await agate(['run', file, '--scripted', fixture('finish.json')]);
    expect(out.code).toBe(ExitCode.usage);
    expect(out.stderr).toContain('must export the agent as its default export');
    expect(out.stderr).toContain('its default export is missing');
  });

  it('ends blocked (exit 1) when the model keeps trying to finish, and max-ticks likewise', async () => {
    const stubborn = join(work, 'stubborn.json');
    await writeFile(stubborn, JSON.stringify({ turns: ['Done.'], whenExhausted: 'repeat-last' }));
    const out = await agate(['run', fixture('notes-agent.tsx'), '--scripted', stubborn]);
    expect(out.code).toBe(ExitCode.runFailed);
    expect(out.stdout).toContain('  exit refused (final: the run ends blocked):');
    expect(out.stdout).toMatch(/status: blocked — /);
    const short = await agate([
      'run',
      fixture('notes-agent.tsx'),
      '--scripted',
      fixture('finish-early.json'),
      '--max-ticks',
      '2',
    ]);
    expect(short.code).toBe(ExitCode.runFailed);
    expect(short.stdout).toContain('status: blocked — maxTicks (2) reached while');
  });
});

describe('--version', () => {
  it('prints the package version and exits 0', async () => {
    const { version } = JSON.parse(
      await readFile(new URL('../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    for (const flag of ['--version', '-v']) {
      const out = await agate([flag]);
      expect(out.code).toBe(ExitCode.ok);
      expect(out.stdout).toBe(`${version}\n`);
    }
  });
});
