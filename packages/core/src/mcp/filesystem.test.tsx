import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModel } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, McpServer, System, Timeline, User } from '../index.js';
import { FILESYSTEM, fixture } from './__fixtures__/servers.js';

// The reference filesystem server over stdio, on a temp directory: real files.

let dir = '';
let outside = '';
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'agate-mcp-fs-')));
  outside = await realpath(await mkdtemp(join(tmpdir(), 'agate-mcp-outside-')));
  await writeFile(join(dir, 'notes.txt'), 'buy milk\n');
  await writeFile(join(outside, 'secret.txt'), 'top secret\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

function resultTexts(timeline: readonly { role: string; content: unknown }[]): string[] {
  return timeline.flatMap((m) =>
    m.role === 'tool' && Array.isArray(m.content)
      ? (m.content as { type: string; output: { type: string; value: unknown } }[]).map(
          (p) => `${p.output.type}: ${JSON.stringify(p.output.value)}`,
        )
      : [],
  );
}

describe('<McpServer> with server-filesystem', () => {
  it('lists, reads, writes and moves real files; a path outside the allowed directory is the server error', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'fs_list_directory', input: { path: dir } },
          { toolName: 'fs_read_text_file', input: { path: join(dir, 'notes.txt') } },
          {
            toolName: 'fs_write_file',
            input: { path: join(dir, 'todo.txt'), content: 'call mum\n' },
          },
          {
            toolName: 'fs_move_file',
            input: { source: join(dir, 'notes.txt'), destination: join(dir, 'shopping.txt') },
          },
          { toolName: 'fs_read_text_file', input: { path: join(outside, 'secret.txt') } },
        ],
      },
      'Done.',
    ]);
    const session = createSession(
      <>
        <System>Tidy the files.</System>
        <User>Go.</User>
        <McpServer
          name="fs"
          command={process.execPath}
          args={[FILESYSTEM, dir]}
          prefix="fs"
          exclude={['read_media_file']}
          toolOptions={{
            move_file: { needsApproval: true, category: 'patch' },
            fs_write_file: { description: 'Write a whole file (replaces it).' },
          }}
        />
        <Timeline />
      </>,
      { model },
    );
    // move_file needs approval: it is held while the other calls run, and runs once approved.
    const held = await session.run();
    expect(held.status).toBe('awaiting-approval');
    expect(held.pendingApprovals.map((p) => p.toolName)).toEqual(['fs_move_file']);
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('buy milk\n');
    session.approveToolCall(held.pendingApprovals[0]!.id, { by: 'ana' });
    const result = await session.run();
    expect(result.status).toBe('completed');
    const [listing, read, written, moved, denied] = resultTexts(result.timeline);
    expect(listing).toContain('[FILE] notes.txt');
    expect(read).toContain('buy milk');
    expect(written).toContain('Successfully wrote');
    expect(moved).toContain('Successfully moved');
    // The server refused, and the model reads its words as a tool error.
    expect(denied).toMatch(
      /^error-text: .*fs_read_text_file.*failed.*(Access denied|outside allowed)/,
    );
    expect(await readFile(join(dir, 'todo.txt'), 'utf8')).toBe('call mum\n');
    expect(await readFile(join(dir, 'shopping.txt'), 'utf8')).toBe('buy milk\n');
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');

    const offered = model.calls[0]?.tools ?? [];
    expect(offered.map((t) => t.name)).not.toContain('fs_read_media_file');
    expect(offered.find((t) => t.name === 'fs_write_file')).toMatchObject({
      description: 'Write a whole file (replaces it).',
    });
    // toolOptions reach the compiled tool as a <Tool>'s props would (approval works on them).
    const move = session.context?.tools.find((t) => t.name === 'fs_move_file');
    expect(move?.guard).toMatchObject({
      needsApproval: true,
      category: 'patch',
      timeoutMs: 60_000,
    });
    session.dispose();
  });

  it('follows notifications/tools/list_changed at the next tick', async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'unlock', input: {} }] },
      { toolCalls: [{ toolName: 'secret', input: {} }] },
      'Done.',
    ]);
    const result = await createSession(
      <>
        <User>Go.</User>
        <McpServer
          name="fixture"
          command={process.execPath}
          args={[fixture('fixture-server.mjs')]}
        />
        <Timeline />
      </>,
      { model },
    ).run();
    expect(result.status).toBe('completed');
    const names = (i: number) => (model.calls[i]?.tools ?? []).map((t) => t.name);
    expect(names(0)).not.toContain('secret');
    expect(names(1)).toContain('secret');
    expect(resultTexts(result.timeline)[1]).toContain('42');
  });
});
