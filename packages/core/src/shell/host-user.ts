import { mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { childProcess } from '../ground/builtins.js';
import { isWithin, type SandboxPolicy } from './policy.js';
import { SandboxUnavailableError } from './shell-errors.js';
import { syscallNumbers } from './syscall-numbers.js';
import { CAPPED_TMPFS, REMOUNT_BODY } from './tmpfs-inodes.js';

/**
 * When the agent runs as root (most containers), a sandboxed command would run as host uid 0
 * too: bubblewrap maps the uid inside to the uid that started it, and files are checked
 * against that, so every file only root may read would be readable (`/etc/shadow`, the
 * approval key). So the command runs as an unprivileged host user instead (`SANDBOX_HOST_UID`,
 * 65534), and a small root helper prepares its view first, in a mount namespace of its own:
 *
 * - each writable folder is bound onto itself through an idmapped mount (Linux 5.12+) that
 *   shows its owner as that user, so writes work there as before (files made there get the
 *   folder owner's uid on disk);
 * - a folder on the way to one (or to a tool on PATH) that the user could not pass through
 *   (`/root`, a `mkdtemp` folder: mode 0700) is covered by an empty tmpfs holding only the way
 *   down to what must stay reachable, so nothing else in it becomes reachable;
 * - then it drops to that user and starts bubblewrap.
 *
 * Everything else is checked against the unprivileged user: a root-only file anywhere stays
 * unreadable, whatever its name. The helper is a Perl script (perl-base is part of every
 * Debian and Ubuntu system) because Node cannot make the mount system calls; it is run with
 * `perl -e`, from this file's text.
 */
export const SANDBOX_HOST_UID = 65534;

/** What the helper does before it starts bubblewrap. */
export interface HostUserPlan {
  uid: number;
  gid: number;
  /** Writable folders, remapped: on-disk `uid`/`gid` shows as the sandbox user. */
  idmapped: Array<{ path: string; uid: number; gid: number }>;
  /** Folders the user could not reach, covered by an empty tmpfs. */
  hidden: string[];
  /** Folders under a hidden one that must stay reachable, bound back (read-only by their modes). */
  exposed: string[];
}

function searchable(path: string, uid: number, gid: number): boolean {
  try {
    const s = statSync(path);
    if (!s.isDirectory()) return false;
    if (s.uid === uid) return (s.mode & 0o100) !== 0;
    if (s.gid === gid) return (s.mode & 0o010) !== 0;
    return (s.mode & 0o001) !== 0;
  } catch {
    return false;
  }
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The folders from `/` (excluded) down to `path` (excluded). */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let d = dirname(path); d !== dirname(d); d = dirname(d)) out.unshift(d);
  return out;
}

/**
 * The helper's plan, or undefined when commands may keep the agent's uid (not root, or
 * `runAsHostRoot`). `searchPath` is the PATH commands get: the install folder (the parent) of
 * each entry stays reachable, so tools installed under `/root` still run.
 */
export function hostUserPlan(
  policy: SandboxPolicy,
  searchPath: string | undefined,
  hostUid = process.getuid?.(),
): HostUserPlan | undefined {
  if (hostUid !== 0 || policy.runAsHostRoot) return undefined;
  const uid = SANDBOX_HOST_UID;
  const gid = SANDBOX_HOST_UID;
  const writable = policy.write.map(real).filter((p): p is string => p !== undefined);
  const idmapped = writable.map((path) => {
    const s = statSync(path);
    return { path, uid: s.uid, gid: s.gid };
  });
  const hidden = new Set<string>();
  const blockedBy = (target: string): string | undefined =>
    ancestors(target).find(
      (a) => !writable.some((w) => isWithin(a, w)) && !searchable(a, uid, gid),
    );
  for (const target of writable) {
    const blocker = blockedBy(target);
    if (blocker !== undefined) hidden.add(blocker);
  }
  const reads = new Set<string>();
  const read = (target: string, bringBack: string) => {
    const blocker = blockedBy(target);
    if (blocker === undefined) return;
    hidden.add(blocker);
    // Never the blocking folder itself: that would bring back all it holds.
    reads.add(isWithin(blocker, bringBack) ? target : bringBack);
  };
  const cwd = real(policy.cwd);
  if (cwd !== undefined && !writable.some((w) => isWithin(cwd, w))) read(cwd, cwd);
  for (const entry of (searchPath ?? '').split(delimiter)) {
    if (!isAbsolute(entry)) continue;
    const dir = real(entry);
    if (dir !== undefined && dirname(dir) !== dir) read(dir, dirname(dir));
  }
  // Only the outermost hidden folders get a tmpfs: what lies below one is hidden with it.
  const outermost = [...hidden].filter(
    (h) => ![...hidden].some((other) => other !== h && isWithin(h, other)),
  );
  const exposed = [...reads].filter(
    (r) =>
      !writable.some((w) => isWithin(r, w)) &&
      ![...reads].some((other) => other !== r && isWithin(r, other)),
  );
  return { uid, gid, idmapped, hidden: outermost.sort(), exposed: exposed.sort() };
}

/**
 * Whether the command can see `path` at all under `plan`: not below a hidden folder, or
 * below one of the folders brought back. Mounts elsewhere (a deny over a file in `/root`)
 * have nothing to cover and cannot be made.
 */
export function reachable(plan: HostUserPlan | undefined, path: string): boolean {
  if (plan === undefined) return true;
  if (!plan.hidden.some((h) => isWithin(path, h))) return true;
  return [...plan.idmapped.map((i) => i.path), ...plan.exposed].some((t) => isWithin(path, t));
}

/**
 * The helper. Arguments: the syscall numbers of this architecture, the sandbox uid and gid,
 * then `i:UID:GID:PATH` (idmap PATH, on-disk UID/GID shown as the sandbox user),
 * `r:PATH` (bring PATH back), `h:PATH` (cover PATH with an empty tmpfs), `c:OPTIONS` and
 * `t:PATH` (the tmpfs inode caps: a child forked first, still root, runs tmpfs-inodes.ts's
 * remount on descriptors 6 and 7, which the helper itself then closes), `x:FDS` (descriptors the
 * agent inherited without close-on-exec, comma-separated: closed first, so neither the remount
 * helper nor the command holds them), `--`, the command.
 * open_tree, move_mount and mount_setattr have one number on every architecture.
 * Any failure exits 125 with `agate-sandbox:` and what failed; nothing runs half set up.
 */
export const HELPER_SCRIPT = String.raw`
use strict;
sub fail { print STDERR "agate-sandbox: $_[0]: $!\n"; exit 125 }
my ($unshare, $mount, $setresuid, $setresgid, $setgroups, $setns, $close) = map { 0 + $_ } split /,/, shift @ARGV;
my $uid = 0 + shift @ARGV; my $gid = 0 + shift @ARGV;
my (@idmap, @expose, @hide, @cap, $cap_opts);
while (@ARGV) {
  my $spec = shift @ARGV; last if $spec eq '--';
  if ($spec =~ /^i:(\d+):(\d+):(.+)$/s) { push @idmap, [0 + $1, 0 + $2, $3] }
  elsif ($spec =~ /^r:(.+)$/s) { push @expose, $1 }
  elsif ($spec =~ /^h:(.+)$/s) { push @hide, $1 }
  elsif ($spec =~ /^c:(.+)$/s) { $cap_opts = $1 }
  elsif ($spec =~ /^t:(.+)$/s) { push @cap, $1 }
  elsif ($spec =~ /^x:([\d,]+)$/) { syscall($close, 0 + $_) for split /,/, $1 }
  else { $! = 0; fail("bad argument $spec") }
}
if (defined $cap_opts) {
  my $child = fork; defined $child or fail('fork');
  if (!$child) {
    # The remount helper: the pid on fd 6, its status on fd 7, none of the sandbox's pipes held.
    open(STDIN, '<&=', 6) or exit 0; open(STDOUT, '>&=', 7) or exit 0; open(STDERR, '>', '/dev/null');
    syscall($close, $_) for 3, 4, 5, 8;
    my ($setns, $mount, $opts, @dirs) = ($setns, $mount, $cap_opts, @cap);
    ${REMOUNT_BODY}
  }
  syscall($close, $_) for 6, 7;
}
# A user namespace whose only mapping is on-disk owner -> sandbox user, held by a child.
my %userns;
sub userns_fd {
  my ($u, $g) = @_; my $key = "$u:$g";
  return fileno($userns{$key}) if $userns{$key};
  pipe(my $r1, my $w1) or fail('pipe'); pipe(my $r2, my $w2) or fail('pipe');
  my $pid = fork; defined $pid or fail('fork');
  if (!$pid) {
    close $r1; close $w2;
    syscall($unshare, 0x10000000) == 0 or exit 1;
    syswrite $w1, 'x'; sysread $r2, my $buf, 1; exit 0;
  }
  close $w1; close $r2;
  sysread($r1, my $ready, 1) == 1 or fail('user namespace');
  for (["uid_map", $u, $uid], ["gid_map", $g, $gid]) {
    open(my $f, '>', "/proc/$pid/$_->[0]") or fail($_->[0]);
    print $f "$_->[1] $_->[2] 1\n"; close $f or fail($_->[0]);
  }
  open($userns{$key}, '<', "/proc/$pid/ns/user") or fail('user namespace');
  # Not waited for: the open descriptor keeps the namespace, the child exits on the end of its
  # pipe, and its exit took 3 ms of every command's start here. bubblewrap, which this process
  # becomes, reaps it (its monitor loop waits on any child).
  close $w2;
  return fileno($userns{$key});
}
my ($none, $root, $tmpfs, $empty) = ('none', '/', 'tmpfs', '');
syscall($unshare, 0x20000) == 0 or fail('mount namespace');
# MS_REC | MS_PRIVATE: nothing done here reaches the host.
syscall($mount, $none, $root, 0, 0x4000 | 0x40000, 0) == 0 or fail('private mounts');
my @attach;
for my $m (@idmap) {
  my ($u, $g, $path) = @$m;
  my $fd = syscall(428, -100, $path, 1 | 0x80000 | 0x8000); $fd >= 0 or fail("open_tree $path");
  my $attr = pack('QQQQ', 0x100000, 0, 0, userns_fd($u, $g));
  syscall(442, $fd, $empty, 0x1000 | 0x8000, $attr, 32) == 0 or fail("idmapped mount of $path");
  push @attach, [$fd, $path];
}
for my $path (@expose) {
  my $fd = syscall(428, -100, $path, 1 | 0x80000 | 0x8000); $fd >= 0 or fail("open_tree $path");
  push @attach, [$fd, $path];
}
for my $path (@hide) {
  my $opts = 'mode=0755,size=1m';
  syscall($mount, $tmpfs, $path, $tmpfs, 2 | 4, $opts) == 0 or fail("tmpfs on $path");
}
for my $a (sort { length($a->[1]) <=> length($b->[1]) } @attach) {
  my ($fd, $path) = @$a; my $at = '';
  for my $part (grep { length } split m{/}, $path) {
    $at .= "/$part"; next if -e $at;
    mkdir $at or fail("mkdir $at");
  }
  syscall(429, $fd, $empty, -100, $path, 4) == 0 or fail("move_mount $path");
}
syscall($setgroups, 0, 0) == 0 or fail('setgroups');
syscall($setresgid, $gid, $gid, $gid) == 0 or fail('setresgid');
syscall($setresuid, $uid, $uid, $uid) == 0 or fail('setresuid');
exec { $ARGV[0] } @ARGV or fail("exec $ARGV[0]");
`;

/**
 * `perl -e HELPER …` arguments that prepare `plan` and then run `command`; with `capOptions`,
 * the helper also caps the sandbox's tmpfs inodes (tmpfs-inodes.ts), reading the pid on
 * descriptor 6 and answering on 7; `inherited` descriptors are closed before anything else.
 */
export function helperArgs(
  plan: HostUserPlan,
  command: readonly string[],
  capOptions?: string,
  inherited: readonly number[] = [],
): string[] {
  const numbers = syscallNumbers();
  if (numbers === undefined) {
    throw new SandboxUnavailableError(
      `<Shell> cannot run commands as an unprivileged user on ${process.arch}. ` +
        'Run the agent as a non-root user, or keep root inside the sandbox with sandbox.runAsHostRoot: true.',
    );
  }
  return [
    '-e',
    HELPER_SCRIPT,
    // The order the helper's first line reads them in.
    [
      numbers.unshare,
      numbers.mount,
      numbers.setresuid,
      numbers.setresgid,
      numbers.setgroups,
      numbers.setns,
      numbers.close,
    ].join(','),
    String(plan.uid),
    String(plan.gid),
    ...plan.idmapped.map((m) => `i:${m.uid}:${m.gid}:${m.path}`),
    ...plan.exposed.map((p) => `r:${p}`),
    ...plan.hidden.map((p) => `h:${p}`),
    ...(inherited.length === 0 ? [] : [`x:${inherited.join(',')}`]),
    ...(capOptions === undefined ? [] : [`c:${capOptions}`, ...CAPPED_TMPFS.map((p) => `t:${p}`)]),
    '--',
    ...command,
  ];
}

type Probe = { ok: true } | { ok: false; error: SandboxUnavailableError };
const probed = new Map<string, Probe>();

/**
 * Whether the helper works here (perl, the mount calls, idmapped mounts on the temp folder's
 * file system, bubblewrap for the unprivileged user), checked once per process with a
 * throwaway folder; the answer is cached.
 */
export function checkHostUser(perl = 'perl'): void {
  let result = probed.get(perl);
  if (result === undefined) {
    result = probeHostUser(perl);
    probed.set(perl, result);
  }
  if (!result.ok) throw result.error;
}

function probeHostUser(perl: string): Probe {
  const dir = mkdtempSync(join(tmpdir(), 'agate-idmap-probe-'));
  try {
    const s = statSync(dir);
    const plan: HostUserPlan = {
      uid: SANDBOX_HOST_UID,
      gid: SANDBOX_HOST_UID,
      idmapped: [{ path: dir, uid: s.uid, gid: s.gid }],
      hidden: [],
      exposed: [],
    };
    // The whole chain: the mapping, bubblewrap started by the unprivileged user, a write.
    const bwrap = ['bwrap', '--ro-bind', '/', '/', '--bind', dir, dir, '--unshare-all'];
    const command = [...bwrap, '--', '/bin/sh', '-c', `touch '${dir}/probe'`];
    const run = childProcess().spawnSync(perl, helperArgs(plan, command), {
      encoding: 'utf8',
      timeout: 10_000,
    });
    if (run.status === 0) return { ok: true };
    const why =
      run.error !== undefined
        ? (run.error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'perl is not installed'
          : run.error.message
        : run.stderr.trim() || `exit code ${run.status}`;
    return {
      ok: false,
      error: new SandboxUnavailableError(
        `The agent runs as root, and <Shell> runs commands as an unprivileged user (uid ${SANDBOX_HOST_UID}) ` +
          `so files only root may read stay unreadable; that needs perl, idmapped mounts (Linux 5.12+, ` +
          `CAP_SYS_ADMIN) and user namespaces for that user, and here it failed: ${why}. ` +
          'Run the agent as a non-root user, or accept that ' +
          'commands can read root-only files with sandbox.runAsHostRoot: true.',
      ),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
