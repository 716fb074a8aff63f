import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '@agate/cli';
import { createSession, type RunResult, type Session } from '@agate/core';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
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

describe('the demo (`pnpm start`: agate run src/demo.tsx)', () => {
  it('runs offline through the agate command', async () => {
    const before = new Set(await readdir(tmpdir()));
    onTestFinished(async () => {
      for (const name of await readdir(tmpdir())) {
        if (name.startsWith('agate-mcp-agent-') && !before.has(name)) {
          await rm(join(tmpdir(), name), { recursive: true, force: true });
        }
      }
    });
    let out = '';
    let err = '';
    await main(['run', fileURLToPath(new URL('./demo.tsx', import.meta.url))], {
      out: (text) => {
        out += text;
      },
      err: (text) => {
        err += text;
      },
      env: {},
      isTTY: false,
      onInterrupt: () => () => {},
    });
    expect(err).toBe('');
    expect(out).toContain("model: the agent file's options.model (offline-mcp-agent");
    expect(out).toContain('list_directory');
    expect(out).toContain('[FILE] holiday.png');
    // Until a person approves them, the moves wait (with approvals); without them, they run.
    expect(out).toMatch(/status: (completed|awaiting-approval)/);
  });
});
