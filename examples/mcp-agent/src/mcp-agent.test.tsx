import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSession, type RunResult, type Session } from '@agate/core';
import { afterEach, describe, expect, it } from 'vitest';
import { builtCliBin } from '../../../packages/cli/src/__fixtures__/built-cli.js';
import { TidyAgent } from './agent.js';
import { offlineModel, PLAN } from './offline-model.js';
import { createDownloads } from './workspace.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

/**
 * Approves every call the run is waiting on and runs again, until it ends otherwise. Written
 * against the approvals API (`result.pendingApprovals`, `session.approveToolCall`) by name, so
 * that it holds before and after approvals of single calls exist on this branch.
 */
async function runApprovingMoves(
  session: Session,
): Promise<{ result: RunResult; approved: string[] }> {
  const approved: string[] = [];
  let result = await session.run();
  for (let i = 0; i < 5 && result.status === 'awaiting-approval'; i++) {
    const pending =
      (result as { pendingApprovals?: { id: string; toolName: string }[] }).pendingApprovals ?? [];
    const approve = (
      session as unknown as {
        approveToolCall?: (id: string, decision: { by: string }) => unknown;
      }
    ).approveToolCall;
    if (approve === undefined || pending.length === 0) break;
    for (const call of pending) {
      expect(call.toolName).toBe('move_file');
      await approve.call(session, call.id, { by: 'tester' });
      approved.push(call.id);
    }
    result = await session.run();
  }
  return { result, approved };
}

describe('the MCP tidying agent, offline', () => {
  it('lists the folder, makes folders and moves every file through the filesystem server', async () => {
    const root = await createDownloads();
    roots.push(root);
    const session = createSession(<TidyAgent root={root} />, { model: offlineModel(root) });
    const { result } = await runApprovingMoves(session);
    expect(result.status).toBe('completed');
    expect((await readdir(root)).sort()).toEqual(['docs', 'images']);
    for (const [file, folder] of Object.entries(PLAN)) {
      expect(await readdir(join(root, folder))).toContain(file);
    }
    // move_file is mounted with needsApproval: the approvals of single calls act on it.
    const move = session.context?.tools.find((t) => t.name === 'move_file');
    expect(move?.guard?.needsApproval).toBe(true);
    expect(session.context?.tools.map((t) => t.name).sort()).toEqual([
      'create_directory',
      'get_file_info',
      'list_directory',
      'move_file',
    ]);
    session.dispose();
  });
});

/**
 * The `agate` command `pnpm start` runs, built (packages/cli/src/__fixtures__/built-cli.ts): no
 * tsx transform of the CLI's sources at each start; the demo loads as in an installed project.
 */
const BIN = builtCliBin();
const DEMO = fileURLToPath(new URL('./demo.tsx', import.meta.url));

/** The `agate` command in a child process, in `cwd`, offline (no model named by the environment). */
async function agate(cwd: string, args: string[]): Promise<{ code: number | null; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of ['AGATE_BASE_URL', 'AGATE_MODEL', 'AGATE_API_KEY', 'OPENAI_API_KEY']) {
    delete env[name];
  }
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  return { code, out };
}

describe('the demo (`pnpm start`: agate run src/demo.tsx)', () => {
  it('waits for approval of the moves, which `agate approve` / `agate deny` decide from other processes before `--resume` goes on', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'agate-mcp-demo-'));
    roots.push(cwd);
    const first = await agate(cwd, ['run', DEMO, '--plain']);
    expect(first.out).toContain("model: the agent file's options.model (offline-mcp-agent");
    expect(first.out).toContain('[FILE] holiday.png');
    expect(first.out).toContain('status: awaiting-approval');
    const session = /session (\S+) saved/.exec(first.out)?.[1];
    // The live view's lines: the held call and the command that decides it.
    const held = [...first.out.matchAll(/agate approve (\S+) (\S+) --by <name>/g)];
    expect(held.map((m) => m[1])).toEqual([session, session, session, session]);
    const ids = held.map((m) => m[2]!);
    const moves = [...first.out.matchAll(/→ move_file \{"source":"[^"]*\/([^"/]+)"/g)].map(
      (m) => m[1],
    );
    expect(moves.sort()).toEqual(Object.keys(PLAN).sort());
    const downloads = join(cwd, '.agate', 'downloads');
    // Nothing moved while the calls wait.
    expect((await readdir(downloads)).sort()).toEqual(
      [...Object.keys(PLAN), 'docs', 'images'].sort(),
    );

    const notes = ids[moves.indexOf('notes.txt')]!;
    for (const id of ids.filter((id) => id !== notes)) {
      const approved = await agate(cwd, ['approve', session!, id, '--by', 'alice']);
      expect(approved.out).toContain(`Approved tool call ${id}`);
    }
    const denied = await agate(cwd, [
      'deny',
      session!,
      notes,
      '--by',
      'alice',
      '--reason',
      'notes stay at hand',
    ]);
    expect(denied.out).toContain(`Denied tool call ${notes}`);

    // Another process again: the approved moves run first, the denied one is answered, then the
    // model (which reads the conversation, not a count of its own calls) reports.
    const resumed = await agate(cwd, ['run', DEMO, '--plain', '--resume', session!]);
    expect(resumed.out).toContain('status: completed');
    expect(resumed.out).toContain(
      'was denied by alice and was not executed. Reason: notes stay at hand',
    );
    expect(resumed.out).toContain(
      'Left where it was, as a person refused: notes.txt (notes stay at hand).',
    );
    expect((await readdir(downloads)).sort()).toEqual(['docs', 'images', 'notes.txt']);
    expect((await readdir(join(downloads, 'images'))).sort()).toEqual(['cat.jpg', 'holiday.png']);
    expect(await readdir(join(downloads, 'docs'))).toEqual(['invoice.pdf']);
  }, 120_000);
});
