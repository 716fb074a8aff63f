import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireSystem, scriptedModel } from '@agate/testing';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createSession, NetworkAllowEntryError, Shell, System, Timeline, User } from '../index.js';
import { bwrapArgs, FIRST_DATA_FD, SANDBOX_GATE, SECCOMP_FD } from './bwrap-args.js';
import {
  commandEnvironment,
  DEFAULT_MEMORY_BYTES,
  defaultDenyRead,
  looksSecret,
  resolvePolicy,
  type SandboxOptions,
} from './policy.js';

const dir = mkdtempSync(join(tmpdir(), 'agate-shell-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('policy (pure)', () => {
  it('names that look like secrets', () => {
    for (const name of [
      'OPENAI_API_KEY',
      'GITHUB_TOKEN',
      'AWS_SECRET',
      'DB_PASSWORD_FILE',
      'PASSWORD',
      'AGATE_APPROVAL_KEY_FILE',
    ]) {
      expect(looksSecret(name), name).toBe(true);
    }
    for (const name of ['PATH', 'HOME', 'KEYBOARD', 'TOKENIZER', 'LANG']) {
      expect(looksSecret(name), name).toBe(false);
    }
  });

  it('passes an allow-list of the environment, plus what env gives', () => {
    const host = {
      PATH: '/bin',
      HOME: '/home/ana',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      LC_TIME: 'en_GB.UTF-8',
      LC_TELEPHONE: 'de_DE.UTF-8',
      // Named like a locale category, but none: the allow-list names each one.
      LC_SECRET: 'hunter2',
      LC_: 'x',
      lc_all: 'C',
      TERM: 'xterm',
      TZ: 'UTC',
      USER: 'ana',
      DATABASE_URL: 'postgres://app:hunter2@db/app',
      SECRET_KEY_BASE: 'abc',
      SENTRY_DSN: 'https://key@sentry.example/1',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
      SSH_AUTH_SOCK: '/tmp/ssh-agent.sock',
      X_TOKEN: 't',
    };
    expect(commandEnvironment(host, { Y_TOKEN: 'given', DATABASE_URL: 'given-db' })).toEqual({
      PATH: '/bin',
      HOME: '/home/ana',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      LC_TIME: 'en_GB.UTF-8',
      LC_TELEPHONE: 'de_DE.UTF-8',
      TERM: 'xterm',
      TZ: 'UTC',
      USER: 'ana',
      Y_TOKEN: 'given',
      DATABASE_URL: 'given-db',
    });
  });

  it('denies credentials, approval keys, .env files above cwd and the session store by default', () => {
    const denied = defaultDenyRead('/work/repo', '/home/ana', '/srv/app', {
      AGATE_APPROVAL_KEY_FILE: 'keys/signer.key',
      AGATE_APPROVAL_PUBLIC_KEY: '/etc/agate/approval.pub',
    });
    expect(denied).toEqual(
      expect.arrayContaining([
        '/home/ana/.ssh',
        '/home/ana/.aws',
        '/home/ana/.config/gcloud',
        '/home/ana/.netrc',
        '/home/ana/.agate-keys',
        '/srv/app/keys/signer.key',
        '/etc/agate/approval.pub',
        '/etc/agate/agate-approval.key',
        '/work/.env',
        '/.env',
        '/work/repo/.agate',
        '/srv/app/.agate',
      ]),
    );
    expect(denied).not.toContain('/work/repo/.env');
    // A public key given as PEM text names no file.
    const pem = defaultDenyRead('/w', '/h', '/s', {
      AGATE_APPROVAL_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nMCow\n-----END PUBLIC KEY-----',
    });
    expect(pem.filter((p) => p.includes('BEGIN'))).toEqual([]);
  });

  it('checks its options', () => {
    expect(() => resolvePolicy(dir, { tmpSizeBytes: 10 })).toThrow('tmpSizeBytes');
    expect(() => resolvePolicy(dir, { maxProcesses: 1 })).toThrow('maxProcesses');
    expect(() => resolvePolicy(dir, { memoryBytes: 1024 })).toThrow('memoryBytes');
    expect(() => resolvePolicy(dir, { network: { allow: ['http://x'] } })).toThrow(
      NetworkAllowEntryError,
    );
    expect(() => resolvePolicy(dir, { network: { allow: ['localhost:99999'] } })).toThrow(
      'host[:port]',
    );
    expect(resolvePolicy(dir)).toMatchObject({
      memoryBytes: DEFAULT_MEMORY_BYTES,
      allowHostRunFileWrites: false,
      runAsHostRoot: false,
    });
  });

  it('mounts the root read-only first, then the capped tmpfs, the writable folders, the host-run files, then what is denied', () => {
    const policy = resolvePolicy('/work/repo', { tmpSizeBytes: 4096 });
    const args = bwrapArgs(
      policy,
      {
        denied: [
          { path: '/home/ana/.ssh', kind: 'dir' },
          { path: '/home/ana/.netrc', kind: 'file' },
        ],
        hostRun: { pins: ['/work/repo/.git'], readOnly: ['/work/repo/.git/hooks'] },
        data: ['/work/repo/.git/info/exclude'],
        network: false,
        rootHost: true,
      },
      { PATH: '/bin' },
      'ls',
    );
    const at = (...seq: string[]) =>
      args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));
    expect(at('--ro-bind', '/', '/')).toBe(0);
    // Every tmpfs the command may write has a size; the ones that must stay empty are read-only.
    expect(at('--dev', '/dev', '--size', '4096', '--tmpfs', '/dev/shm')).toBeGreaterThan(0);
    expect(at('--size', '4096', '--tmpfs', '/tmp')).toBeLessThan(
      at('--bind', '/work/repo', '/work/repo'),
    );
    expect(at('--bind', '/work/repo', '/work/repo')).toBeLessThan(
      at('--bind', '/work/repo/.git', '/work/repo/.git'),
    );
    expect(at('--bind', '/work/repo/.git', '/work/repo/.git')).toBeLessThan(
      at('--ro-bind', '/work/repo/.git/hooks', '/work/repo/.git/hooks'),
    );
    expect(
      at('--ro-bind-data', String(FIRST_DATA_FD), '/work/repo/.git/info/exclude'),
    ).toBeGreaterThan(0);
    expect(at('--ro-bind', '/work/repo/.git/hooks', '/work/repo/.git/hooks')).toBeLessThan(
      at('--size', '4096', '--tmpfs', '/home/ana/.ssh'),
    );
    expect(at('--ro-bind', '/dev/null', '/home/ana/.netrc')).toBeGreaterThan(0);
    expect(at('--remount-ro', '/dev')).toBeGreaterThan(at('--tmpfs', '/dev/shm'));
    expect(at('--remount-ro', '/home/ana/.ssh')).toBeGreaterThan(at('--tmpfs', '/home/ana/.ssh'));
    expect(args).toContain('--unshare-all');
    expect(at('--uid', '1000', '--gid', '1000')).toBeGreaterThan(0);
    expect(args).toContain('--die-with-parent');
    expect(args).toContain('--clearenv');
    expect(at('--seccomp', String(SECCOMP_FD))).toBeGreaterThan(0);
    // Always: the host caps the tmpfs inodes before the command runs (tmpfs-inodes.ts): the
    // pid comes on the info descriptor, and the gate waits for the host once the mounts are made.
    expect(at('--info-fd', '4')).toBeGreaterThan(0);
    expect(args).not.toContain('--block-fd');
    expect(args.slice(-6)).toEqual(['--', '/bin/sh', '-c', SANDBOX_GATE, 'agate-sandbox', 'ls']);
    const networked = bwrapArgs(
      resolvePolicy('/work/repo', { network: { allow: ['registry.npmjs.org'] } }),
      { denied: [], hostRun: { pins: [], readOnly: [] }, network: true, rootHost: false },
      {},
      'ls',
    );
    expect(networked).toEqual(expect.arrayContaining(['--info-fd', SANDBOX_GATE]));
    // Not root: the agent's own uid inside, no nested user namespace for the bridge to miss.
    expect(networked).not.toContain('--uid');
    expect(networked).toEqual(expect.arrayContaining(['HTTPS_PROXY', 'http://127.0.0.1:3128']));
  });
});

const gitInstalled = requireSystem({
  tests: '<Shell> with git',
  needs: 'git',
  enable: 'apt-get install -y git',
  debianPackage: 'git',
  command: 'git',
});

const sandboxWorks = requireSystem({
  tests: 'sandbox escape suite',
  needs: 'bubblewrap (bwrap) with user namespaces',
  enable: 'apt-get install -y bubblewrap',
  debianPackage: 'bubblewrap',
  command: 'bwrap',
  probe: () =>
    spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--', '/bin/true']).status === 0,
});

function Agent(props: { sandbox?: SandboxOptions | false; maxOutputChars?: number; cwd?: string }) {
  return (
    <>
      <System>You use the shell.</System>
      <User>Go.</User>
      <Timeline />
      <Shell {...props} cwd={props.cwd ?? dir} />
    </>
  );
}

const bash = (command: string) => ({ toolCalls: [{ toolName: 'bash', input: { command } }] });

function outputs(state: { timeline: ReadonlyArray<{ role: string; content: unknown }> }) {
  return state.timeline.flatMap((m) =>
    m.role === 'tool' && Array.isArray(m.content)
      ? m.content.map((p: { output: { value?: unknown } }) => p.output.value)
      : [],
  );
}

describe.skipIf(!sandboxWorks)('<Shell> in a run', () => {
  it('keeps the tail of long output and says how much was cut', async () => {
    const model = scriptedModel([bash('seq 1 20000'), 'Done.']);
    const session = createSession(<Agent maxOutputChars={1_000} />, { model });
    await session.run();
    const [result] = outputs(session.state) as Array<{ stdout: string; exitCode: number }>;
    expect(result?.exitCode).toBe(0);
    expect(result?.stdout).toMatch(
      /^\[output truncated: the first [\d,]+ characters were cut; only the last 1,000 are kept\]/,
    );
    expect(result?.stdout.trimEnd().endsWith('20000')).toBe(true);
  });

  it('a command over sandbox.memoryBytes is killed, the model reads why, and the run goes on', async () => {
    const model = scriptedModel([
      bash('dd if=/dev/zero of=/dev/null bs=1G count=1 iflag=fullblock'),
      bash('echo still here'),
      'Done.',
    ]);
    const session = createSession(<Agent sandbox={{ memoryBytes: 128 * 1024 * 1024 }} />, {
      model,
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    const [killed, next] = outputs(session.state) as Array<{
      exitCode: number;
      stdout: string;
      stderr: string;
    }>;
    expect(killed?.exitCode).not.toBe(0);
    if (killed?.exitCode === 137) {
      expect(killed.stderr).toContain('killed for going over sandbox.memoryBytes (128 MiB)');
    }
    expect(next?.stdout).toBe('still here\n');
  });

  it.skipIf(!gitInstalled)(
    'git works in a repository whose hooks and config are read-only',
    async () => {
      const repo = mkdtempSync(join(tmpdir(), 'agate-shell-git-'));
      try {
        const git = (...args: string[]) =>
          spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
        git('init', '-q');
        git('config', 'user.email', 'agent@example.com');
        git('config', 'user.name', 'Agent');
        writeFileSync(join(repo, 'a.txt'), 'a\n');
        const model = scriptedModel([
          bash(
            'echo b > b.txt && git add -A && git commit -qm "add b" && git status --short && echo clean',
          ),
          'Done.',
        ]);
        const session = createSession(<Agent cwd={repo} />, { model });
        await session.run();
        const [out] = outputs(session.state) as Array<{
          exitCode: number;
          stdout: string;
          stderr: string;
        }>;
        // Nothing untracked: the placeholders for absent host-run files are excluded from git.
        expect(out).toMatchObject({ exitCode: 0, stdout: 'clean\n' });
        expect(git('log', '--format=%s').stdout).toBe('add b\n');
        expect(git('ls-files').stdout).toBe('a.txt\nb.txt\n');
        expect(readdirSync(repo).sort()).toEqual(['.git', 'a.txt', 'b.txt']);
      } finally {
        rmSync(repo, { recursive: true, force: true });
      }
    },
  );

  it('sandbox={false} runs on the host and warns once', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const model = scriptedModel([bash('echo one'), bash('echo two'), 'Done.']);
      const session = createSession(<Agent sandbox={false} />, { model });
      await session.run();
      expect(outputs(session.state).map((o) => (o as { stdout: string }).stdout)).toEqual([
        'one\n',
        'two\n',
      ]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toContain('sandbox={false}');
    } finally {
      warn.mockRestore();
    }
  });
});
