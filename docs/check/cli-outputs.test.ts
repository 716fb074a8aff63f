import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFileStore, createSession } from '@agate/core';
import { requirePostgres, scriptedModel, startPostgres, type TestPostgres } from '@agate/testing';
import { createElement } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ApprovalAgent from '../../packages/cli/src/__fixtures__/approval-agent.js';
import { builtCliBin } from '../../packages/cli/src/__fixtures__/built-cli.js';
import CheckpointAgent from '../../packages/cli/src/__fixtures__/checkpoint-agent.js';
import { fixture } from '../../packages/cli/src/__fixtures__/store-fixture.js';
import { loadScriptedModel } from '../../packages/cli/src/run/scripted-file.js';

/**
 * The command outputs docs/cli.md quotes are the CLI's real output: every `$ agate …` line of
 * its text blocks runs, in the page's order, in a folder holding the sessions the page names
 * (cp-1 waiting at checkpoint T-1, db-7 holding tool call call_3, a truncated broken.json),
 * and prints the lines the page shows. In the page, `…` stands for a part that differs from
 * run to run (a parser's message), as do a key id (16 hex digits) and a time; `/work` stands for the
 * folder, `/home/ana` for $HOME. The worker's examples run against a private PostgreSQL: the
 * page's `127.0.0.1:5432` stands for its address (and `agents.tsx` is an agents file written
 * here); without PostgreSQL those examples are skipped, saying so in the run's skip line.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The built CLI (__fixtures__/built-cli.ts): no tsx transform at each start.
const BIN = builtCliBin();

interface Example {
  /** The page's line of the command. */
  line: number;
  command: string;
  expected: string[];
}

/** `$ agate …` lines of the page's ```text blocks, each with the lines up to the next one. */
function examples(markdown: string): Example[] {
  const found: Example[] = [];
  let inText = false;
  let current: Example | undefined;
  for (const [i, text] of markdown.split('\n').entries()) {
    if (text.startsWith('```')) {
      inText = !inText && text.trim() === '```text';
      current = undefined;
    } else if (inText && text.startsWith('$ agate ')) {
      current = { line: i + 1, command: text.slice(2), expected: [] };
      found.push(current);
    } else if (inText) {
      current?.expected.push(text);
    }
  }
  return found;
}

/** A shell-like split: words, "double-quoted words", and `~` for $HOME. */
function words(command: string, home: string): string[] {
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1] : (m[2] ?? '').replace(/^~(?=\/|$)/, home),
  );
}

/** The page's line as a pattern: its placeholders for the folder and home, `…` for anything. */
function pattern(expected: string, work: string, home: string): RegExp {
  const text = expected.replaceAll('/home/ana', home).replaceAll('/work/', `${work}/`);
  const escaped = text
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replaceAll('…', '.*?')
    // A key id (16 hex digits) is new with every key, a time with every run.
    .replace(/\b[0-9a-f]{16}\b/g, '[0-9a-f]{16}')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\\\.\d{3}Z/g, '\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z');
  return new RegExp(`^${escaped}$`);
}

let work: string;
let home: string;
const hasPostgres = requirePostgres("docs/cli.md's agate worker examples");
let postgres: TestPostgres | undefined;
/** The page's PostgreSQL address, and the one the examples run against. */
const PAGE_ADDRESS = '127.0.0.1:5432';
let address = PAGE_ADDRESS;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'agate-cli-doc-'));
  home = join(work, 'home');
  mkdirSync(home);
  const dir = join(work, '.agate', 'sessions');
  const store = createFileStore(dir);
  const waiting = createSession(createElement(CheckpointAgent), {
    id: 'cp-1',
    model: await loadScriptedModel(fixture('submit-then-write.json')),
    store,
  });
  expect((await waiting.run()).status).toBe('awaiting-approval');
  const held = createSession(createElement(ApprovalAgent), {
    id: 'db-7',
    model: scriptedModel([
      {
        toolCalls: [{ toolCallId: 'call_3', toolName: 'drop_table', input: { table: 'old_logs' } }],
      },
    ]),
    store,
  });
  expect((await held.run()).pendingApprovals.map((p) => p.id)).toEqual(['call_3']);
  const text = readFileSync(join(dir, 'cp-1.json'), 'utf8');
  writeFileSync(join(dir, 'broken.json'), text.slice(0, text.length / 2));
  writeFileSync(
    join(work, 'agents.tsx'),
    `import { System, Timeline, User } from '@agate/core';
export const agents = {
  greeter: { element: () => (<><System>Be brief.</System><User>Hi</User><Timeline /></>) },
};
`,
  );
  if (hasPostgres) {
    postgres = await startPostgres({ private: true });
    address = new URL(postgres.url).host;
  }
}, 120_000);

afterAll(async () => {
  await postgres?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("docs/cli.md's quoted command outputs", () => {
  it('are what the commands print, run in the page order', () => {
    const page = readFileSync(join(root, 'docs', 'cli.md'), 'utf8');
    const quoted = examples(page);
    expect(quoted.length).toBeGreaterThanOrEqual(6);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' };
    const atServer = (text: string) => text.replaceAll(PAGE_ADDRESS, address);
    for (const { line, command: pageCommand, expected: pageExpected } of quoted) {
      if (pageCommand.includes('postgres://') && !hasPostgres) continue;
      const command = atServer(pageCommand);
      const expected = pageExpected.map(atServer);
      const [, ...args] = words(command, home);
      const result = spawnSync(process.execPath, [BIN, ...args], {
        cwd: work,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      const printed = `${result.stdout}${result.stderr}`.trimEnd().split('\n');
      const where = `docs/cli.md:${line}: $ ${command}\nprinted:\n${printed.join('\n')}`;
      expect(printed.length, where).toBe(expected.length);
      for (const [i, want] of expected.entries()) {
        expect(printed[i], where).toMatch(pattern(want, work, home));
      }
    }
    // Each command is the real bin in a child process, loading the sources through tsx.
  }, 180_000);
});
