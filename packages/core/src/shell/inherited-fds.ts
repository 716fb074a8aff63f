import { readdirSync, readFileSync } from 'node:fs';
import { SandboxUnavailableError } from './shell-errors.js';
import { syscallNumbers } from './syscall-numbers.js';

/** `O_CLOEXEC` in the octal `flags` of /proc/self/fdinfo/N (the same on x64 and arm64). */
const O_CLOEXEC = 0o2000000;

/**
 * This process's descriptors from `from` on that a child would inherit: those without
 * close-on-exec. Node opens its own with O_CLOEXEC, so these came from whatever started the
 * agent (a pipe, a socket, a file left open by a parent); libuv replaces only the descriptors a
 * spawn asks for (`0 .. from - 1`), and the launching shell and bubblewrap close nothing, so
 * the rest would reach the sandboxed command. A descriptor closed while this reads is skipped
 * (it is not there to inherit). Costs a read of /proc/self/fd and one small read per open fd.
 */
export function inheritedFds(from: number, procDir = '/proc/self'): number[] {
  let names: string[];
  try {
    names = readdirSync(`${procDir}/fd`);
  } catch (error) {
    // Fail closed: without the list, a leaked socket could not be ruled out.
    throw new SandboxUnavailableError(
      `<Shell> cannot list this process's open descriptors in ${procDir}/fd (${(error as Error).message}), ` +
        'so it cannot keep inherited ones out of the sandbox.',
    );
  }
  const leaked: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isSafeInteger(fd) || fd < from) continue;
    let info: string;
    try {
      info = readFileSync(`${procDir}/fdinfo/${fd}`, 'latin1');
    } catch {
      continue;
    }
    const flags = /^flags:\s*([0-7]+)$/m.exec(info)?.[1];
    if (flags === undefined || (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) leaked.push(fd);
  }
  return leaked.sort((a, b) => a - b);
}

/**
 * A perl one-liner: its first argument is close(2)'s number, its second the descriptors to
 * close (comma-separated); then it becomes the command in the rest. It runs first, before the
 * launching shell, so neither the shell, the remount helper, the host-user helper nor
 * bubblewrap holds them. Perl because dash, `/bin/sh` on Debian, closes only single-digit
 * descriptors in redirections; perl-base is on every Debian and Ubuntu system and the sandbox
 * already uses it. The raw system call, not `use POSIX`: loading POSIX tripled the helper's
 * start (21 ms against 8.7 ms here), paid on every command of an agent that inherited a descriptor.
 */
const CLOSE_FDS_SCRIPT =
  'my $close = 0 + shift @ARGV; syscall($close, 0 + $_) for split /,/, shift @ARGV; ' +
  'exec { $ARGV[0] } @ARGV or do { print STDERR "agate-sandbox: cannot start $ARGV[0]: $!\\n"; exit 127 }';

/** The program and arguments that run `file args` with the inherited descriptors closed first. */
export function withInheritedFdsClosed(
  file: string,
  args: readonly string[],
  leaked: readonly number[],
  arch: string = process.arch,
): [string, string[]] {
  if (leaked.length === 0) return [file, [...args]];
  const close = syscallNumbers(arch)?.close;
  if (close === undefined) {
    throw new SandboxUnavailableError(
      `<Shell> cannot close the descriptors this process inherited (${leaked.join(', ')}) on ${arch} ` +
        '(x64 and arm64 only), so it cannot keep them out of the sandbox.',
    );
  }
  return ['perl', ['-e', CLOSE_FDS_SCRIPT, String(close), leaked.join(','), file, ...args]];
}
