/**
 * The system call numbers the sandbox's perl helpers call by number (`syscall(N, ...)`: Node
 * cannot make these calls, and perl's own wrappers for them need modules that cost a start),
 * per Node architecture. The sandbox runs on these two only (seccomp-filter.ts); elsewhere
 * the helpers are refused or left out, each where it is used.
 */
export interface SyscallNumbers {
  unshare: number;
  mount: number;
  setresuid: number;
  setresgid: number;
  setgroups: number;
  setns: number;
  close: number;
}

const NUMBERS: Readonly<Record<string, SyscallNumbers>> = {
  x64: {
    unshare: 272,
    mount: 165,
    setresuid: 117,
    setresgid: 119,
    setgroups: 116,
    setns: 308,
    close: 3,
  },
  arm64: {
    unshare: 97,
    mount: 40,
    setresuid: 147,
    setresgid: 149,
    setgroups: 159,
    setns: 268,
    close: 57,
  },
};

/** This architecture's numbers (`process.arch` unless given); undefined where there are none. */
export function syscallNumbers(arch: string = process.arch): SyscallNumbers | undefined {
  return NUMBERS[arch];
}
