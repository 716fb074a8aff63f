import { describe, expect, it } from 'vitest';
import { helperArgs } from './host-user.js';
import { syscallNumbers } from './syscall-numbers.js';
import { remountHelperArgs } from './tmpfs-inodes.js';

describe('syscallNumbers', () => {
  it("has the kernel's numbers for x64 and arm64, and none elsewhere", () => {
    expect(syscallNumbers('x64')).toEqual({
      unshare: 272,
      mount: 165,
      setresuid: 117,
      setresgid: 119,
      setgroups: 116,
      setns: 308,
      close: 3,
    });
    expect(syscallNumbers('arm64')).toEqual({
      unshare: 97,
      mount: 40,
      setresuid: 147,
      setresgid: 149,
      setgroups: 159,
      setns: 268,
      close: 57,
    });
    expect(syscallNumbers('riscv64')).toBeUndefined();
  });

  it('reaches the helpers in the order their scripts read them', () => {
    const n = syscallNumbers();
    if (n === undefined)
      throw new Error(`no numbers for ${process.arch}: the shell tests need x64 or arm64`);
    const host = helperArgs({ uid: 1, gid: 1, idmapped: [], hidden: [], exposed: [] }, ['x']);
    expect(host[2]).toBe(
      [n.unshare, n.mount, n.setresuid, n.setresgid, n.setgroups, n.setns, n.close].join(','),
    );
    expect(remountHelperArgs(1 << 20)?.slice(2, 4)).toEqual([String(n.setns), String(n.mount)]);
  });
});
