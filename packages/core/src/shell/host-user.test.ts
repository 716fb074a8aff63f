import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  HELPER_SCRIPT,
  helperArgs,
  hostUserPlan,
  reachable,
  SANDBOX_HOST_UID,
} from './host-user.js';
import { resolvePolicy } from './policy.js';

const base = mkdtempSync(join(tmpdir(), 'agate-host-user-'));
chmodSync(base, 0o755);
afterAll(() => rmSync(base, { recursive: true, force: true }));

function dir(path: string, mode = 0o755): string {
  mkdirSync(path, { recursive: true });
  chmodSync(path, mode);
  return path;
}

describe('host user (plan over real folders)', () => {
  // base/private (0700) holds the writable folder and a tool's install folder; base/open is open.
  const priv = dir(join(base, 'private'), 0o700);
  const work = dir(join(priv, 'work'));
  const tool = dir(join(priv, 'toolchain', 'node', 'bin'));
  const open = dir(join(base, 'open', 'bin'));
  const elsewhere = dir(join(base, 'open', 'elsewhere'));
  const path = [tool, open, 'relative/bin', join(base, 'missing')].join(':');

  it('applies only when the agent is root and runAsHostRoot is not set', () => {
    const policy = resolvePolicy(work);
    expect(hostUserPlan(policy, path, 1000)).toBeUndefined();
    expect(hostUserPlan(resolvePolicy(work, { runAsHostRoot: true }), path, 0)).toBeUndefined();
    expect(hostUserPlan(policy, path, 0)?.uid).toBe(SANDBOX_HOST_UID);
  });

  it('maps each writable folder from its owner, and covers what the user could not pass through', () => {
    const plan = hostUserPlan(resolvePolicy(work, { write: [work, elsewhere] }), path, 0)!;
    const owner = statSync(work);
    expect(plan.idmapped).toEqual([
      { path: work, uid: owner.uid, gid: owner.gid },
      { path: elsewhere, uid: owner.uid, gid: owner.gid },
    ]);
    // Only the outermost folder that stops the user; the open one needs nothing.
    expect(plan.hidden).toEqual([priv]);
    // The install folder of a PATH entry under it is brought back (not the entry's parent's parent).
    expect(plan.exposed).toEqual([join(priv, 'toolchain', 'node')]);
  });

  it('never brings back the blocking folder itself (a bin folder right under /root)', () => {
    const home = dir(join(base, 'home-like'), 0o700);
    const bin = dir(join(home, 'bin'));
    const plan = hostUserPlan(resolvePolicy(elsewhere), bin, 0)!;
    expect(plan.hidden).toEqual([home]);
    expect(plan.exposed).toEqual([bin]);
  });

  it('brings back the working folder when it is not writable, and tells what stays visible', () => {
    const readOnlyCwd = dir(join(priv, 'docs'));
    const plan = hostUserPlan(resolvePolicy(readOnlyCwd, { write: [elsewhere] }), '', 0)!;
    expect(plan.exposed).toEqual([readOnlyCwd]);
    expect(reachable(plan, join(readOnlyCwd, 'a.md'))).toBe(true);
    expect(reachable(plan, join(priv, 'work', 'secret'))).toBe(false);
    expect(reachable(plan, join(elsewhere, 'x'))).toBe(true);
    expect(reachable(plan, '/etc/hostname')).toBe(true);
    expect(reachable(undefined, join(priv, 'anything'))).toBe(true);
  });

  it('passes the plan to the helper as numbered, prefixed arguments, then the command', () => {
    const args = helperArgs(
      {
        uid: 65534,
        gid: 65534,
        idmapped: [{ path: '/w', uid: 0, gid: 0 }],
        hidden: ['/root'],
        exposed: ['/root/.nvm'],
      },
      ['bwrap', '--', 'sh'],
    );
    expect(args[0]).toBe('-e');
    expect(args[1]).toBe(HELPER_SCRIPT);
    expect(args.slice(3)).toEqual([
      '65534',
      '65534',
      'i:0:0:/w',
      'r:/root/.nvm',
      'h:/root',
      '--',
      'bwrap',
      '--',
      'sh',
    ]);
    // unshare, mount, setresuid, setresgid, setgroups, setns, close.
    expect(args[2]).toMatch(/^\d+,\d+,\d+,\d+,\d+,\d+,\d+$/);
    // With the tmpfs caps: the options and the folders, before the command.
    const capped = helperArgs(
      { uid: 65534, gid: 65534, idmapped: [], hidden: [], exposed: [] },
      ['bwrap'],
      'size=1048576,nr_inodes=1024',
    );
    expect(capped.slice(5)).toEqual([
      'c:size=1048576,nr_inodes=1024',
      't:/tmp',
      't:/dev/shm',
      '--',
      'bwrap',
    ]);
    // Inherited descriptors: closed while the arguments are read, before any fork or mount.
    const closing = helperArgs(
      { uid: 65534, gid: 65534, idmapped: [], hidden: [], exposed: [] },
      ['bwrap'],
      'size=1048576,nr_inodes=1024',
      [12, 251],
    );
    expect(closing.slice(5, 7)).toEqual(['x:12,251', 'c:size=1048576,nr_inodes=1024']);
    expect(HELPER_SCRIPT).toContain('elsif ($spec =~ /^x:([\\d,]+)$/) { syscall($close, 0 + $_)');
    // The forked remount child holds none of the sandbox's pipes; the helper lets go of its two.
    expect(HELPER_SCRIPT).toContain('syscall($close, $_) for 3, 4, 5, 8;');
    expect(HELPER_SCRIPT).toContain('syscall($close, $_) for 6, 7;');
  });
});
