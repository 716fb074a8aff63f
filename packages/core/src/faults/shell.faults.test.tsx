import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireSystem, scaledLimit, scriptedModel } from '@agate/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createSession,
  NetworkAllowEntryError,
  PhaseGates,
  Shell,
  System,
  Timeline,
  Todos,
  User,
} from '../index.js';

const sandboxWorks = requireSystem({
  tests: 'sandbox escape suite',
  needs: 'bubblewrap (bwrap) with user namespaces',
  enable: 'apt-get install -y bubblewrap',
  debianPackage: 'bubblewrap',
  command: 'bwrap',
  probe: () =>
    spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--', '/bin/true']).status === 0,
});

const dirs: string[] = [];
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agate-shell-faults-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'math.js'), 'export const add = (a, b) => a - b;\n');
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function ShellAgent(props: { cwd: string; timeoutMs?: number }) {
  return (
    <>
      <System>You fix bugs with the shell.</System>
      <User>Fix add in math.js.</User>
      <Timeline />
      <Shell
        cwd={props.cwd}
        {...(props.timeoutMs !== undefined ? { timeoutMs: props.timeoutMs } : {})}
      />
      <PhaseGates mode="block" />
    </>
  );
}

const bash = (command: string) => ({ toolCalls: [{ toolName: 'bash', input: { command } }] });

function running(text: string): string[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(text);
      } catch {
        return false;
      }
    });
}

function git(dir: string, ...args: string[]): void {
  const run = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
}

describe.skipIf(!sandboxWorks)('shell faults', () => {
  it('a model that plants core.fsmonitor and an .envrc for the host to run later (issue 48)', async () => {
    const cwd = workspace();
    git(cwd, 'init', '-q');
    git(cwd, 'config', 'extensions.worktreeConfig', 'true');
    const marker = join(cwd, '..', `${process.pid}-planted-ran`);
    dirs.push(marker);
    const model = scriptedModel(
      [
        bash(
          `printf '#!/bin/sh\\necho ran > ${marker}\\n' > m.sh; chmod +x m.sh; ` +
            `printf '[core]\\n\\tfsmonitor = ${join(cwd, 'm.sh')}\\n' > .git/config.worktree; ` +
            `echo './m.sh' > .envrc; echo 'node-options=--require ./m.js' > .npmrc; echo done`,
        ),
        'Done.',
      ],
      { whenExhausted: 'repeat-last' },
    );
    const session = createSession(<ShellAgent cwd={cwd} />, { model });
    const result = await session.run();
    expect(result.status).not.toBe('error');
    const output = JSON.stringify(
      session.state.timeline.flatMap((m) => (m.role === 'tool' ? m.content : [])),
    );
    // The model reads why its writes failed; the run goes on.
    expect(output).toContain('Read-only file system');
    for (const name of ['.git/config.worktree', '.envrc', '.npmrc']) {
      expect(readdirSync(join(cwd, name, '..')), name).not.toContain(name.split('/').pop());
    }
    const status = spawnSync('git', ['-C', cwd, 'status', '--porcelain'], { encoding: 'utf8' });
    expect(status.status).toBe(0);
    expect(readdirSync(join(cwd, '..'))).not.toContain(`${process.pid}-planted-ran`);
  });

  it('a malformed network allow-list entry (a URL, a port out of range)', async () => {
    for (const entry of ['https://registry.npmjs.org', 'localhost:70000', '::1']) {
      const model = scriptedModel([bash('echo never'), 'Done.']);
      const session = createSession(
        <>
          <User>Go.</User>
          <Timeline />
          <Shell cwd={workspace()} sandbox={{ network: { allow: [entry] } }} />
        </>,
        { model },
      );
      const result = await session.run();
      // Refused at render, before any command runs: the typed error, naming the entry and the form.
      expect(result.status, entry).toBe('error');
      const cause = (result.error as { cause?: unknown } | undefined)?.cause;
      expect(cause, entry).toBeInstanceOf(NetworkAllowEntryError);
      expect(String(cause), entry).toContain('host[:port]');
    }
  });

  it('a shell command that outlives its timeout', async () => {
    const cwd = workspace();
    const marker = `33.${process.pid}`;
    const model = scriptedModel([bash(`sleep ${marker} & sleep ${marker}`), 'Gave up.'], {
      whenExhausted: 'repeat-last',
    });
    const session = createSession(<ShellAgent cwd={cwd} timeoutMs={300} />, { model });
    const result = await session.run();
    const output = session.state.timeline
      .flatMap((m) => (m.role === 'tool' ? m.content : []))
      .map((p) => (p.type === 'tool-result' && 'value' in p.output ? p.output.value : null))[0];
    expect(output).toMatchObject({ timedOut: true });
    expect(running(`sleep ${marker}`)).toEqual([]);
    // The run goes on after the timed-out call: it is a tool result, not a failure.
    expect(result.status).not.toBe('error');
  });

  it('a run aborted while a sandboxed command runs', async () => {
    const cwd = workspace();
    const marker = `34.${process.pid}`;
    const controller = new AbortController();
    const model = scriptedModel([bash(`sleep ${marker} & sleep ${marker}`), 'never']);
    const session = createSession(<ShellAgent cwd={cwd} />, { model, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 300);
    const started = Date.now();
    const result = await session.run();
    expect(result.status).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(scaledLimit(5_000));
    // The command and what it put in the background are gone with the abort (killed; waited for
    // until the kernel has reaped them, not for a fixed delay).
    await expect
      .poll(() => running(`sleep ${marker}`), { timeout: scaledLimit(2_000), interval: 25 })
      .toEqual([]);
  });

  it('a shell edit the phase gates read without wiring', async () => {
    const cwd = workspace();
    const model = scriptedModel([
      bash('cat math.js'),
      bash("sed -i 's/a - b/a + b/' math.js"),
      'Fixed.',
      bash('node -e "import(\'./math.js\').then(m => process.exit(m.add(2, 2) === 4 ? 0 : 1))"'),
      'Fixed and checked.',
    ]);
    const session = createSession(<ShellAgent cwd={cwd} />, { model });
    const result = await session.run();
    // The first finish is refused (a change, no verification); the sandboxed test run counts.
    expect(result.events.some((e) => e.type === 'exit:blocked')).toBe(true);
    expect(result.status).toBe('completed');
    expect(readFileSync(join(cwd, 'math.js'), 'utf8')).toContain('a + b');
  });

  it('a todo signed off with a sandboxed command, without wiring', async () => {
    const cwd = workspace();
    const item = { content: 'Check math.js', activeForm: 'Checking math.js' };
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'todo_write', input: { todos: [{ ...item, status: 'in_progress' }] } },
        ],
      },
      bash('grep -c add math.js'),
      {
        toolCalls: [
          {
            toolName: 'complete_step',
            input: { step: 1, evidence: { verification: 'grep -c add math.js' } },
          },
          { toolName: 'todo_write', input: { todos: [{ ...item, status: 'completed' }] } },
        ],
      },
      'Done.',
    ]);
    const session = createSession(
      <>
        <System>You check files.</System>
        <User>Check math.js.</User>
        <Timeline />
        <Shell cwd={cwd} />
        <Todos requireComplete />
      </>,
      { model },
    );
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(result.todos?.[0]).toMatchObject({
      status: 'completed',
      evidence: { verified: true, command: 'grep -c add math.js' },
    });
  });
});
