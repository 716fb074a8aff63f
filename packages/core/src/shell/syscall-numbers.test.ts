import { readFileSync } from 'node:fs';
import { requireSystem } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { helperArgs } from './host-user.js';
import { type SyscallNumbers, syscallNumbers } from './syscall-numbers.js';
import { remountHelperArgs } from './tmpfs-inodes.js';

/**
 * The kernel's own tables, as the kernel headers give them: arm64 uses the generic one (on
 * every architecture with the headers); x64's is there on an x64 machine.
 */
const GENERIC_TABLE = '/usr/include/asm-generic/unistd.h';
const X64_TABLE = '/usr/include/x86_64-linux-gnu/asm/unistd_64.h';

const headers = requireSystem({
  tests: "the system call numbers checked against the kernel's headers",
  needs: `the Linux kernel headers (${GENERIC_TABLE})`,
  enable: 'apt-get install -y linux-libc-dev',
  debianPackage: 'linux-libc-dev',
  command: process.arch === 'x64' ? X64_TABLE : GENERIC_TABLE,
});

/** The numbers a header's `#define __NR_<name> <number>` lines give for each name we call. */
function fromHeader(path: string): SyscallNumbers {
  const text = readFileSync(path, 'utf8');
  const number = (name: keyof SyscallNumbers): number => {
    const match = new RegExp(`^#define __NR_${name}\\s+(\\d+)$`, 'm').exec(text);
    if (match === null) throw new Error(`${path} defines no __NR_${name}`);
    return Number(match[1]);
  };
  return {
    unshare: number('unshare'),
    mount: number('mount'),
    setresuid: number('setresuid'),
    setresgid: number('setresgid'),
    setgroups: number('setgroups'),
    setns: number('setns'),
    close: number('close'),
  };
}

describe('syscallNumbers', () => {
  it.skipIf(!headers)("has the kernel headers' numbers for arm64 and (on x64) x64", () => {
    expect(syscallNumbers('arm64')).toEqual(fromHeader(GENERIC_TABLE));
    if (process.arch === 'x64') expect(syscallNumbers('x64')).toEqual(fromHeader(X64_TABLE));
  });

  it('has none for another architecture', () => {
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
