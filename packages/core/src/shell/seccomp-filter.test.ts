/**
 * The seccomp program's structure, per architecture: every jump lands inside the program, it
 * ends in returns, and run on sample `seccomp_data` (by a small classic-BPF interpreter below)
 * it refuses exactly what it says. The same program runs for real in escape.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  BPF,
  type BpfInstruction,
  encodeProgram,
  SECCOMP_RET,
  type SeccompArch,
  seccompArch,
  socketFilterProgram,
} from './seccomp-filter.js';

const NUMBERS: Record<
  SeccompArch,
  {
    audit: number;
    socket: number;
    socketpair: number;
    clone: number;
    unshare: number;
    read: number;
  }
> = {
  x86_64: { audit: 0xc000003e, socket: 41, socketpair: 53, clone: 56, unshare: 272, read: 0 },
  aarch64: { audit: 0xc00000b7, socket: 198, socketpair: 199, clone: 220, unshare: 97, read: 63 },
};
const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const AF_PACKET = 17;
const AF_VSOCK = 40;
const SOCK_STREAM = 1;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0o2000000;
const CLONE_NEWUSER = 0x10000000;
const CLONE_NEWNS = 0x20000;
const SIGCHLD = 17;
const EPERM = SECCOMP_RET.ERRNO | 1;
const ENOSYS = SECCOMP_RET.ERRNO | 38;

/** Runs a classic-BPF seccomp program over one `struct seccomp_data` (little-endian). */
function run(
  program: readonly BpfInstruction[],
  call: { arch: number; nr: number; args?: ReadonlyArray<number | bigint> },
): number {
  const data = Buffer.alloc(64);
  data.writeUInt32LE(call.nr >>> 0, 0);
  data.writeUInt32LE(call.arch >>> 0, 4);
  (call.args ?? []).forEach((arg, i) => {
    data.writeBigUInt64LE(BigInt(arg), 16 + 8 * i);
  });
  let a = 0;
  for (let pc = 0, steps = 0; pc < program.length && steps < 1000; steps++) {
    const ins = program[pc]!;
    switch (ins.code) {
      case BPF.LD_W_ABS:
        a = data.readUInt32LE(ins.k);
        pc++;
        break;
      case BPF.ALU_AND_K:
        a = (a & ins.k) >>> 0;
        pc++;
        break;
      case BPF.JMP_JEQ_K:
        pc += 1 + (a === ins.k >>> 0 ? ins.jt : ins.jf);
        break;
      case BPF.JMP_JGE_K:
        pc += 1 + (a >= ins.k >>> 0 ? ins.jt : ins.jf);
        break;
      case BPF.JMP_JSET_K:
        pc += 1 + ((a & ins.k) !== 0 ? ins.jt : ins.jf);
        break;
      case BPF.RET_K:
        return ins.k >>> 0;
      default:
        throw new Error(`unknown opcode ${ins.code} at ${pc}`);
    }
  }
  throw new Error('the program ran off its end');
}

describe.each(['x86_64', 'aarch64'] as const)('seccomp program for %s', (arch) => {
  const program = socketFilterProgram(arch, true);
  const n = NUMBERS[arch];
  const call = (nr: number, ...args: Array<number | bigint>) =>
    run(program, { arch: n.audit, nr, args });

  it('is well formed: small, jumps inside, every path ends in a return', () => {
    expect(program.length).toBeLessThan(64);
    expect(program[0]).toEqual({ code: BPF.LD_W_ABS, jt: 0, jf: 0, k: 4 });
    program.forEach((ins, i) => {
      if (ins.code === BPF.JMP_JEQ_K || ins.code === BPF.JMP_JGE_K || ins.code === BPF.JMP_JSET_K) {
        expect(i + 1 + ins.jt).toBeLessThan(program.length);
        expect(i + 1 + ins.jf).toBeLessThan(program.length);
      }
    });
    expect(program.at(-1)?.code).toBe(BPF.RET_K);
    const bytes = encodeProgram(program, true);
    expect(bytes.length).toBe(program.length * 8);
    // struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }
    expect(bytes.readUInt16LE(0)).toBe(BPF.LD_W_ABS);
    expect(bytes.readUInt32LE(4)).toBe(4);
  });

  it('allows IP and netlink sockets only: every other family is refused', () => {
    expect(call(n.socket, AF_UNIX, SOCK_STREAM)).toBe(EPERM);
    expect(call(n.socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC)).toBe(EPERM);
    // The kernel reads an int: bits above 32 do not turn AF_UNIX into something else.
    expect(call(n.socket, (1n << 40n) | BigInt(AF_UNIX))).toBe(EPERM);
    expect(call(n.socket, AF_INET, SOCK_STREAM)).toBe(SECCOMP_RET.ALLOW);
    expect(call(n.socket, AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC)).toBe(SECCOMP_RET.ALLOW);
    expect(call(n.socket, AF_NETLINK, SOCK_DGRAM)).toBe(SECCOMP_RET.ALLOW);
    // Bits above 32 do not turn AF_VSOCK into AF_INET either, nor the other way round.
    expect(call(n.socket, (1n << 33n) | BigInt(AF_INET))).toBe(SECCOMP_RET.ALLOW);
    const allowed = new Set([AF_INET, AF_INET6, AF_NETLINK]);
    // Every family the kernel knows (AF_MAX is 46 in 6.x) and some it does not yet.
    for (let family = 0; family < 64; family++) {
      if (allowed.has(family)) continue;
      expect(call(n.socket, family, SOCK_STREAM), `family ${family}`).toBe(EPERM);
    }
    expect(call(n.socket, AF_VSOCK, SOCK_STREAM)).toBe(EPERM);
    expect(call(n.socket, AF_PACKET, SOCK_DGRAM)).toBe(EPERM);
    expect(call(n.socket, 0xffffffff, SOCK_STREAM)).toBe(EPERM);
  });

  it('refuses datagram socket pairs (they can sendto any path) and allows stream pairs', () => {
    expect(call(n.socketpair, AF_UNIX, SOCK_DGRAM)).toBe(EPERM);
    expect(call(n.socketpair, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC)).toBe(EPERM);
    expect(call(n.socketpair, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)).toBe(SECCOMP_RET.ALLOW);
  });

  it('refuses io_uring and new user namespaces; clone3 reports ENOSYS so libc falls back', () => {
    for (const nr of [425, 426, 427]) expect(call(nr)).toBe(EPERM);
    expect(call(n.unshare, CLONE_NEWUSER | CLONE_NEWNS)).toBe(EPERM);
    expect(call(n.clone, CLONE_NEWUSER | SIGCHLD)).toBe(EPERM);
    expect(call(n.clone, SIGCHLD)).toBe(SECCOMP_RET.ALLOW);
    expect(call(n.unshare, CLONE_NEWNS)).toBe(SECCOMP_RET.ALLOW);
    expect(call(435)).toBe(ENOSYS);
  });

  it('allows everything else, and kills any other ABI', () => {
    expect(call(n.read, 0)).toBe(SECCOMP_RET.ALLOW);
    // i386 (AUDIT_ARCH_I386): socket (359) and the socketcall multiplexer (102, SYS_SOCKET),
    // whose family lies in memory; ARM's 32-bit ABI; and the other architecture's numbers.
    for (const arch32 of [0x40000003, 0x40000028]) {
      expect(run(program, { arch: arch32, nr: 359, args: [AF_VSOCK] })).toBe(
        SECCOMP_RET.KILL_PROCESS,
      );
      expect(run(program, { arch: arch32, nr: 102, args: [1, 0x1000] })).toBe(
        SECCOMP_RET.KILL_PROCESS,
      );
    }
    const other = arch === 'x86_64' ? NUMBERS.aarch64 : NUMBERS.x86_64;
    expect(run(program, { arch: other.audit, nr: other.socket, args: [AF_UNIX] })).toBe(
      SECCOMP_RET.KILL_PROCESS,
    );
    if (arch === 'x86_64') {
      // x32 shares x86_64's AUDIT_ARCH and sets bit 30 of the number.
      expect(call(0x40000000 | 41, AF_UNIX)).toBe(SECCOMP_RET.KILL_PROCESS);
    }
  });
});

describe('seccomp program, big-endian and mapping', () => {
  it('reads the low half of an argument where a big-endian kernel puts it', () => {
    const le = socketFilterProgram('aarch64', true);
    const be = socketFilterProgram('aarch64', false);
    const loads = (p: BpfInstruction[]) =>
      p.filter((i) => i.code === BPF.LD_W_ABS && i.k >= 16).map((i) => i.k);
    expect(loads(be)).toEqual(loads(le).map((k) => k + 4));
    expect(encodeProgram(be, false).readUInt16BE(0)).toBe(BPF.LD_W_ABS);
  });

  it("maps Node's architecture names", () => {
    expect(seccompArch('x64')).toBe('x86_64');
    expect(seccompArch('arm64')).toBe('aarch64');
    expect(seccompArch('ia32')).toBeUndefined();
  });
});
