/**
 * The escape suite: every attempt a steered model might make from inside `<Shell>`'s sandbox,
 * one test each, run against real bubblewrap. Each must fail to escape.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireSystem } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHostUser } from './host-user.js';
import { commandEnvironment, resolvePolicy, type SandboxOptions } from './policy.js';
import { checkSandbox } from './probe.js';
import { runShellCommand, type ShellResult } from './run-command.js';

const sandboxWorks = requireSystem({
  tests: 'sandbox escape suite',
  needs: 'bubblewrap (bwrap) with user namespaces',
  enable: 'apt-get install -y bubblewrap',
  debianPackage: 'bubblewrap',
  command: 'bwrap',
  probe: () =>
    spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--', '/bin/true']).status === 0,
});

let base: string;
let cwd: string;
/** Visible to the sandbox (read-only), outside everything it may write. */
let outside: string;
let server: Server;
let port: number;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'agate-escape-'));
  cwd = join(base, 'work');
  mkdirSync(cwd);
  outside = mkdtempSync('/var/tmp/agate-escape-outside-');
  // Readable by anyone (when the agent is root, commands run as an unprivileged user).
  chmodSync(outside, 0o755);
  writeFileSync(join(outside, 'target.txt'), 'original\n');
  writeFileSync(join(base, '.env'), 'API_TOKEN=hunter2\n');
  mkdirSync(join(cwd, '.agate', 'sessions'), { recursive: true });
  writeFileSync(join(cwd, '.agate', 'sessions', 'other-session.json'), '{"secret":"other"}');
  server = createServer((_req, res) => res.end('reached the host server'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(base, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

function sh(
  command: string,
  sandbox: SandboxOptions = {},
  extra: Partial<{ timeoutMs: number; env: Record<string, string> }> = {},
): Promise<ShellResult> {
  return runShellCommand({
    command,
    policy: resolvePolicy(cwd, sandbox),
    cwd,
    env: commandEnvironment(process.env, extra.env),
    timeoutMs: extra.timeoutMs ?? 15_000,
    maxOutputChars: 10_000,
    signal: new AbortController().signal,
  });
}

/** Processes on the host whose command line contains `text` (no pgrep needed). */
function processesMatching(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(text)) found.push(`${pid}: ${cmdline}`);
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

const untouched = () =>
  expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('original\n');

describe.skipIf(!sandboxWorks).concurrent('escape suite', () => {
  it('writing outside by absolute path', async () => {
    const r = await sh(`echo pwned > ${outside}/target.txt; echo pwned > ${outside}/new.txt`);
    expect(r.stderr).toContain('Read-only file system');
    untouched();
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
  });

  it('writing outside through ..', async () => {
    const up = cwd.split('/').filter(Boolean).length;
    const r = await sh(
      `echo pwned > ../escaped.txt; echo pwned > ${'../'.repeat(up)}${outside.slice(1)}/target.txt`,
    );
    // The first lands in the sandbox's private /tmp (gone with it), the second on a read-only mount.
    expect(r.stderr).toContain('Read-only file system');
    expect(existsSync(join(base, 'escaped.txt'))).toBe(false);
    untouched();
  });

  it('writing through a symlink planted inside cwd that points out', async () => {
    symlinkSync(join(outside, 'target.txt'), join(cwd, 'planted-link'));
    const r = await sh('echo pwned > planted-link');
    expect(r.exitCode).not.toBe(0);
    untouched();
  });

  it('writing through a hard link to a file outside', async () => {
    const r = await sh(`ln ${outside}/target.txt hard-link && echo pwned >> hard-link`);
    expect(r.exitCode).not.toBe(0);
    untouched();
  });

  it('reading a denied path (.env above cwd, a denyRead folder)', async () => {
    const secretDir = join(outside, 'secrets');
    mkdirSync(secretDir);
    writeFileSync(join(secretDir, 'id_rsa'), 'PRIVATE KEY');
    const r = await sh(`cat ../.env; cat ${secretDir}/id_rsa; ls ${secretDir}`, {
      denyRead: [secretDir],
    });
    expect(r.stdout).not.toContain('hunter2');
    expect(r.stdout).not.toContain('PRIVATE KEY');
    // The defaults cover the usual credentials without asking.
    const policy = resolvePolicy(cwd);
    for (const path of ['.ssh', '.aws', '.config/gcloud', '.netrc']) {
      expect(policy.denyRead.some((p) => p.endsWith(path))).toBe(true);
    }
  });

  it('reading another session in the store directory', async () => {
    const r = await sh('cat .agate/sessions/other-session.json; ls .agate/sessions');
    expect(r.stdout).not.toContain('other');
  });

  it('reaching a loopback server on another port with network off', async () => {
    const r = await sh(
      `curl -sS -m 3 http://127.0.0.1:${port}/ || node -e "fetch('http://127.0.0.1:${port}/').then(r=>r.text()).then(console.log)"`,
    );
    expect(r.stdout).not.toContain('reached the host server');
  });

  it('DNS with network off', async () => {
    const r = await sh('getent hosts registry.npmjs.org && echo RESOLVED');
    expect(r.stdout).not.toContain('RESOLVED');
  });

  it('reaching a host not on the allow-list with network on', async () => {
    const allowed = await sh(`curl -sS -m 5 http://127.0.0.1:${port}/`, {
      network: { allow: [`127.0.0.1:${port}`] },
    });
    // The allow-list works: an allowed host is reached through the filtering proxy...
    expect(allowed.stdout).toBe('reached the host server');
    const denied = await sh(
      `curl -sS -m 5 http://127.0.0.1:${port}/; curl -sS -m 3 --noproxy '*' http://127.0.0.1:${port}/`,
      { network: { allow: ['registry.npmjs.org'] } },
    );
    // ...and anything else is refused by it, or unreachable around it.
    expect(denied.stdout).toContain('not on the sandbox');
    expect(denied.stdout).not.toContain('reached the host server');
  });

  it("reaching another port of an allowed host: allow: ['localhost:PORT'], CONNECT to the database's port (issue 48)", async () => {
    // The reported attack: PostgreSQL on another local port, reached through the proxy.
    const database = createTcpServer((socket) => {
      databaseAccepted++;
      socket.end('DATABASE SPEAKING\n');
    });
    let databaseAccepted = 0;
    await new Promise<void>((resolve) => database.listen(0, '127.0.0.1', resolve));
    const dbPort = (database.address() as AddressInfo).port;
    try {
      const r = await sh(
        `curl -sS -m 5 http://localhost:${port}/; echo; ` +
          `curl -sS -m 5 -p http://localhost:${dbPort}/ 2>&1; echo; ` +
          `curl -sS -m 5 http://localhost:${dbPort}/; echo; ` +
          `curl -sS -m 5 -p http://127.0.0.1:${dbPort}/ 2>&1; echo; ` +
          // A name resolving to 127.0.0.1 on an allowed port, not named with that port.
          `curl -sS -m 5 http://localhost/; echo`,
        { network: { allow: [`localhost:${port}`, 'localhost'] } },
      );
      // The allowed host:port passes...
      expect(r.stdout).toContain('reached the host server');
      // ...another port of it does not, by CONNECT (-p) or plain request.
      expect(r.stdout).not.toContain('DATABASE SPEAKING');
      expect(r.stdout).toMatch(/CONNECT tunnel failed, response 403|Received HTTP code 403/);
      expect(r.stdout).toContain(`localhost:${dbPort} is not on the sandbox's network allow-list`);
      expect(r.stdout).toContain(
        'an address of this host or its private network; only an allow-list entry naming exactly localhost:80 reaches it',
      );
      expect(databaseAccepted).toBe(0);
    } finally {
      await new Promise((resolve) => database.close(resolve));
    }
  });

  it('/proc/1/root', async () => {
    const r = await sh(
      `echo pwned > /proc/1/root${outside}/target.txt; cat /proc/1/root/etc/hostname >/dev/null && echo read`,
    );
    untouched();
    expect(r.stderr).not.toBe('');
  });

  it('a setuid binary', async () => {
    const id = '/usr/bin/id';
    const planted = join(cwd, 'suid-id');
    copyFileSync(id, planted);
    let setuid = false;
    try {
      chmodSync(planted, 0o4755);
      setuid = process.getuid?.() === 0;
    } catch {
      // Not root: the file is not setuid-root; the no_new_privs check below still holds.
    }
    const r = await sh('./suid-id -u; grep NoNewPrivs /proc/self/status');
    expect(r.stdout).toMatch(/NoNewPrivs:\s+1/);
    if (setuid) expect(r.stdout.split('\n')[0]).not.toBe('0');
  });

  it("signalling the agent's own process", async () => {
    const r = await sh(`kill -TERM ${process.pid} && echo SIGNALLED`);
    expect(r.stdout).not.toContain('SIGNALLED');
  });

  it('a fork bomb', async () => {
    const started = Date.now();
    const r = await sh(
      'bomb() { bomb | bomb & }; bomb; sleep 3; echo survived',
      { maxProcesses: 64 },
      { timeoutMs: 8_000 },
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    // The limit bites (the shell cannot fork), and the command still ends within its timeout.
    expect(r.stderr).toMatch(/fork|Resource temporarily unavailable/i);
    // The host still starts processes.
    expect(spawnSync('/bin/true').status).toBe(0);
  });

  it('filling the disk', async () => {
    const r = await sh('dd if=/dev/zero of=/tmp/fill bs=1M count=64 2>&1; df -k /tmp | tail -1', {
      tmpSizeBytes: 1024 * 1024,
    });
    expect(r.stdout).toMatch(/No space left on device/);
  });

  it('a background process outliving the command', async () => {
    const marker = `31.${process.pid}${Date.now() % 1000}`;
    const r = await sh(
      `sleep ${marker} & nohup sleep ${marker} >/dev/null 2>&1 & setsid sleep ${marker} & (sleep ${marker} &) ; echo started`,
    );
    expect(r.stdout).toContain('started');
    expect(processesMatching(`sleep ${marker}`)).toEqual([]);
  });

  it('a command past its timeout, with children', async () => {
    const marker = `32.${process.pid}${Date.now() % 1000}`;
    const r = await sh(`sleep ${marker} & sleep ${marker}`, {}, { timeoutMs: 300 });
    expect(r.timedOut).toBe(true);
    expect(processesMatching(`sleep ${marker}`)).toEqual([]);
  });

  it('secrets in the environment', async () => {
    process.env.AGATE_TEST_API_TOKEN = 'tok-123';
    process.env.AGATE_TEST_DB_PASSWORD_X = 'pw-456';
    try {
      const r = await sh('env', {}, { env: { GIVEN_TOKEN: 'passed-in' } });
      expect(r.stdout).not.toContain('tok-123');
      expect(r.stdout).not.toContain('pw-456');
      expect(r.stdout, JSON.stringify(r)).toContain('GIVEN_TOKEN=passed-in');
    } finally {
      delete process.env.AGATE_TEST_API_TOKEN;
      delete process.env.AGATE_TEST_DB_PASSWORD_X;
    }
  });
});

describe('no silent fallback', () => {
  it('a sandbox that cannot start is an error naming the fix', () => {
    expect(() => checkSandbox('/nonexistent/bwrap')).toThrow(
      /bubblewrap \(bwrap\) is not installed.*apt-get install bubblewrap.*sandbox=\{false\}/,
    );
  });

  it('a root host where commands cannot run unprivileged is an error naming the fixes', () => {
    expect(() => checkHostUser('/nonexistent/perl')).toThrow(
      /runs as root.*uid 65534.*perl is not installed.*non-root user.*sandbox\.runAsHostRoot: true/,
    );
  });
});
