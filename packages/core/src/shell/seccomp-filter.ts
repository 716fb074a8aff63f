import { endianness } from 'node:os';

/**
 * The seccomp filter every sandboxed command runs under (bubblewrap loads it with `--seccomp FD`):
 * a classic-BPF program over `struct seccomp_data` that refuses, with EPERM,
 *
 * - `socket()` of every family but `AF_INET`, `AF_INET6` and `AF_NETLINK`: no Unix socket on
 *   the host (a database, docker.sock, D-Bus, ssh-agent) can be reached, since connecting needs
 *   a socket of one's own first, and no family that leaves the sandbox's network namespace
 *   (`AF_VSOCK` reaches the hypervisor; Bluetooth, CAN, TIPC, RDS, AF_ALG's kernel crypto, …)
 *   or that its loopback makes no use of. An allow-list: a family added to the kernel later
 *   stays refused;
 * - `socketpair(AF_UNIX, SOCK_DGRAM, …)`: a datagram pair can still `sendto()` any path
 *   (syslog, journald); stream pairs (pipes between processes, Node's stdio) stay allowed;
 * - `io_uring_setup/enter/register`: io_uring creates sockets from a shared ring that seccomp
 *   cannot inspect (IORING_OP_SOCKET);
 * - `unshare` and `clone` with CLONE_NEWUSER (and `clone3`, whose flags sit in a struct a filter
 *   cannot read, with ENOSYS so libc falls back to `clone`): a new user namespace would give the
 *   command capabilities over a private copy of its mounts, the read-only binds included;
 *
 * and kills the process on any other ABI: a 32-bit call (an i386 or arm binary, or `int 0x80`
 * from a 64-bit one) reaches `socket` through numbers this program does not look at, or through
 * `socketcall()`, whose multiplexer keeps the family in memory a filter cannot read; x32 calls
 * carry x86_64's arch with bit 30 of the number set. Everything else is
 * allowed. The same program is written once per architecture; only numbers differ.
 */
export type SeccompArch = 'x86_64' | 'aarch64';

interface ArchNumbers {
  /** AUDIT_ARCH_* (linux/audit.h): what the kernel puts in `seccomp_data.arch`. */
  audit: number;
  socket: number;
  socketpair: number;
  clone: number;
  unshare: number;
  /** x86_64 only: syscall numbers at or above this are the x32 ABI. */
  x32Bit?: number;
}

const ARCHES: Record<SeccompArch, ArchNumbers> = {
  // arch/x86/entry/syscalls/syscall_64.tbl
  x86_64: {
    audit: 0xc000003e,
    socket: 41,
    socketpair: 53,
    clone: 56,
    unshare: 272,
    x32Bit: 0x40000000,
  },
  // include/uapi/asm-generic/unistd.h
  aarch64: { audit: 0xc00000b7, socket: 198, socketpair: 199, clone: 220, unshare: 97 },
};

/** io_uring_setup, io_uring_enter, io_uring_register: the same numbers on every architecture. */
const IO_URING = [425, 426, 427];
/** clone3: the same number on every architecture. */
const CLONE3 = 435;
const CLONE_NEWUSER = 0x10000000;
const AF_UNIX = 1;
/** The socket families a command may open: IP (the sandbox's loopback, the proxy) and netlink (`ip addr`, getaddrinfo's interface check). */
export const ALLOWED_FAMILIES = { AF_INET: 2, AF_INET6: 10, AF_NETLINK: 16 } as const;
const SOCK_DGRAM = 2;
/** `type` also carries SOCK_NONBLOCK / SOCK_CLOEXEC; the socket type is its low four bits. */
const SOCK_TYPE_MASK = 0xf;
const EPERM = 1;
const ENOSYS = 38;

export const SECCOMP_RET = {
  KILL_PROCESS: 0x80000000,
  ERRNO: 0x00050000,
  ALLOW: 0x7fff0000,
} as const;

/** Classic BPF opcodes (linux/bpf_common.h) used here. */
export const BPF = {
  LD_W_ABS: 0x20,
  ALU_AND_K: 0x54,
  JMP_JEQ_K: 0x15,
  JMP_JGE_K: 0x35,
  JMP_JSET_K: 0x45,
  RET_K: 0x06,
} as const;

/** One `struct sock_filter`. */
export interface BpfInstruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** Offsets in `struct seccomp_data`: nr, arch, then six 64-bit arguments after the IP. */
const NR = 0;
const ARCH = 4;
/** The low 32 bits of argument `i` (the kernel reads `int` arguments from there). */
function argLow(i: number, littleEndian: boolean): number {
  return 16 + 8 * i + (littleEndian ? 0 : 4);
}

type Target = string | 'next';
type Line =
  | { label: string }
  | { op: 'ld'; offset: number }
  | { op: 'and'; k: number }
  | { op: 'jeq' | 'jge' | 'jset'; k: number; jt: Target; jf: Target }
  | { op: 'ret'; k: number };

/** The filter for `arch` as instructions (see the module comment for what it refuses). */
export function socketFilterProgram(
  arch: SeccompArch,
  littleEndian = endianness() === 'LE',
): BpfInstruction[] {
  const n = ARCHES[arch];
  const lines: Line[] = [
    { op: 'ld', offset: ARCH },
    { op: 'jeq', k: n.audit, jt: 'next', jf: 'kill' },
    { op: 'ld', offset: NR },
    ...(n.x32Bit === undefined
      ? []
      : [{ op: 'jge' as const, k: n.x32Bit, jt: 'kill', jf: 'next' }]),
    { op: 'jeq', k: n.socket, jt: 'socket', jf: 'next' },
    { op: 'jeq', k: n.socketpair, jt: 'socketpair', jf: 'next' },
    ...IO_URING.map((nr) => ({ op: 'jeq' as const, k: nr, jt: 'eperm', jf: 'next' })),
    { op: 'jeq', k: n.unshare, jt: 'newuser', jf: 'next' },
    { op: 'jeq', k: n.clone, jt: 'newuser', jf: 'next' },
    { op: 'jeq', k: CLONE3, jt: 'enosys', jf: 'next' },
    { op: 'ret', k: SECCOMP_RET.ALLOW },
    // unshare(flags) and clone(flags, …): the flags are the first argument on both ABIs.
    { label: 'newuser' },
    { op: 'ld', offset: argLow(0, littleEndian) },
    { op: 'jset', k: CLONE_NEWUSER, jt: 'eperm', jf: 'allow' },
    { label: 'socket' },
    { op: 'ld', offset: argLow(0, littleEndian) },
    { op: 'jeq', k: ALLOWED_FAMILIES.AF_INET, jt: 'allow', jf: 'next' },
    { op: 'jeq', k: ALLOWED_FAMILIES.AF_INET6, jt: 'allow', jf: 'next' },
    { op: 'jeq', k: ALLOWED_FAMILIES.AF_NETLINK, jt: 'allow', jf: 'eperm' },
    { label: 'socketpair' },
    { op: 'ld', offset: argLow(0, littleEndian) },
    { op: 'jeq', k: AF_UNIX, jt: 'next', jf: 'allow' },
    { op: 'ld', offset: argLow(1, littleEndian) },
    { op: 'and', k: SOCK_TYPE_MASK },
    { op: 'jeq', k: SOCK_DGRAM, jt: 'eperm', jf: 'allow' },
    { label: 'allow' },
    { op: 'ret', k: SECCOMP_RET.ALLOW },
    { label: 'eperm' },
    { op: 'ret', k: SECCOMP_RET.ERRNO | EPERM },
    { label: 'enosys' },
    { op: 'ret', k: SECCOMP_RET.ERRNO | ENOSYS },
    { label: 'kill' },
    { op: 'ret', k: SECCOMP_RET.KILL_PROCESS },
  ];
  return assemble(lines);
}

/** Resolves labels to the relative jumps classic BPF takes (forward only, at most 255). */
function assemble(lines: Line[]): BpfInstruction[] {
  const at = new Map<string, number>();
  let index = 0;
  for (const line of lines) {
    if ('label' in line) at.set(line.label, index);
    else index++;
  }
  const out: BpfInstruction[] = [];
  for (const line of lines) {
    if ('label' in line) continue;
    const here = out.length;
    const jump = (target: Target): number => {
      if (target === 'next') return 0;
      const to = at.get(target);
      if (to === undefined || to <= here || to - here - 1 > 255) {
        throw new Error(`seccomp filter: bad jump to ${target} from ${here}`);
      }
      return to - here - 1;
    };
    switch (line.op) {
      case 'ld':
        out.push({ code: BPF.LD_W_ABS, jt: 0, jf: 0, k: line.offset });
        break;
      case 'and':
        out.push({ code: BPF.ALU_AND_K, jt: 0, jf: 0, k: line.k });
        break;
      case 'jeq':
      case 'jge':
      case 'jset':
        out.push({
          code: { jeq: BPF.JMP_JEQ_K, jge: BPF.JMP_JGE_K, jset: BPF.JMP_JSET_K }[line.op],
          jt: jump(line.jt),
          jf: jump(line.jf),
          k: line.k,
        });
        break;
      case 'ret':
        out.push({ code: BPF.RET_K, jt: 0, jf: 0, k: line.k });
        break;
    }
  }
  return out;
}

/** The program as bubblewrap reads it from `--seccomp FD`: `struct sock_filter[]`, native order. */
export function encodeProgram(
  program: readonly BpfInstruction[],
  littleEndian = endianness() === 'LE',
): Buffer {
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((ins, i) => {
    const o = i * 8;
    if (littleEndian) {
      bytes.writeUInt16LE(ins.code, o);
      bytes.writeUInt32LE(ins.k >>> 0, o + 4);
    } else {
      bytes.writeUInt16BE(ins.code, o);
      bytes.writeUInt32BE(ins.k >>> 0, o + 4);
    }
    bytes.writeUInt8(ins.jt, o + 2);
    bytes.writeUInt8(ins.jf, o + 3);
  });
  return bytes;
}

/** The architecture of this Node process in seccomp's terms, or undefined (no filter for it). */
export function seccompArch(nodeArch: string = process.arch): SeccompArch | undefined {
  if (nodeArch === 'x64') return 'x86_64';
  if (nodeArch === 'arm64') return 'aarch64';
  return undefined;
}
