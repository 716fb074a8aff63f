import type { Readable, Writable } from 'node:stream';
import { syscallNumbers } from './syscall-numbers.js';

/**
 * The writable tmpfs mounts of a sandbox (`/tmp`, `/dev/shm`) get a byte cap from bubblewrap
 * (`--size`) but no inode cap: its tmpfs option string has no room for one, and the kernel's
 * default is half the machine's memory pages, so a command making empty files or folders (no
 * bytes used) could pin millions of inodes of kernel memory. Bubblewrap waits on its block
 * descriptor after making its mounts; meanwhile the host joins the sandbox's mount namespace
 * (through the user namespace that owns it, where the host's uid holds every capability) and
 * remounts each with `nr_inodes`.
 */
export const CAPPED_TMPFS = ['/tmp', '/dev/shm'] as const;

/** Inodes per tmpfs: one per 4 KiB page of its size (a file with bytes takes a page anyway), at least 1,024. */
export function inodeCap(tmpSizeBytes: number): number {
  return Math.max(1024, Math.floor(tmpSizeBytes / 4096));
}

const MS_NOSUID = 0x2;
const MS_NODEV = 0x4;
const MS_REMOUNT = 0x20;
/** ioctl on a namespace file: the user namespace that owns it (linux/nsfs.h). */
const NS_GET_USERNS = 0xb701;
const CLONE_NEWUSER = 0x10000000;
const CLONE_NEWNS = 0x20000;

/**
 * The remount, as a Perl script (perl-base is on every Debian and Ubuntu system; host-user.ts
 * uses it the same way; Node cannot make these calls). It is started beside bubblewrap, not
 * after it: perl's start-up then overlaps bubblewrap's, and the helper waits, blocked on its
 * stdin, for the sandbox's pid (a line; end of input: nothing to do). It joins the user
 * namespace that owns the sandbox's mount namespace (not the command's own: with `--uid`
 * bubblewrap nests a second one that holds no power over the mounts), then the mount namespace,
 * and remounts each folder. bubblewrap's flags (`nosuid`, `nodev`) are given again, since a
 * remount sets them anew. It writes its status to stdout (`0`: every folder capped).
 * Arguments: the setns and mount numbers, the options, then the folders. On a root host the
 * host-user helper (host-user.ts) runs the same body in a child it forks before it drops to the
 * sandbox user, which spares a second perl.
 */
export const REMOUNT_BODY = `sub done { syswrite(STDOUT, "$_[0]\\n"); exit 0 }
my $line = <STDIN>; defined $line or done(1);
my ($pid) = $line =~ /^([1-9][0-9]{0,9})\\n?$/ or done(1);
open(my $mnt, '<', "/proc/$pid/ns/mnt") or done(2);
my $owner = ioctl($mnt, ${NS_GET_USERNS}, 0); defined $owner or done(3);
syscall(0 + $setns, 0 + $owner, ${CLONE_NEWUSER}) == 0 or done(4);
syscall(0 + $setns, fileno($mnt), ${CLONE_NEWNS}) == 0 or done(5);
my $type = "tmpfs";
for my $dir (@dirs) { syscall(0 + $mount, $type, $dir, $type, ${MS_REMOUNT | MS_NOSUID | MS_NODEV}, $opts) == 0 or done(6) }
done(0);`;

export const REMOUNT_SCRIPT = `my ($setns, $mount, $opts, @dirs) = @ARGV;\n${REMOUNT_BODY}`;

/** The tmpfs options of the remount: the size again and the inode cap. */
export function remountOptions(tmpSizeBytes: number): string {
  return `size=${tmpSizeBytes},nr_inodes=${inodeCap(tmpSizeBytes)}`;
}

/**
 * `perl` arguments of the remount helper for this machine; undefined where it has no system
 * call numbers (the byte cap and the memory cgroup stay the bound there, docs/shell.md).
 */
export function remountHelperArgs(tmpSizeBytes: number): string[] | undefined {
  const numbers = syscallNumbers();
  if (numbers === undefined) return undefined;
  return [
    '-e',
    REMOUNT_SCRIPT,
    String(numbers.setns),
    String(numbers.mount),
    remountOptions(tmpSizeBytes),
    ...CAPPED_TMPFS,
  ];
}

/**
 * The remount helper's answer, read from its stdout (`fromHelper`): whether every tmpfs was
 * capped. Listen from the spawn on: once the launcher exits, Node drains its readable pipes
 * and a stream that has ended before anyone listened never says so again (a listener added
 * after a timeout's kill would wait forever).
 */
export function remountStatus(fromHelper: Readable): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let text = '';
    fromHelper.setEncoding('utf8');
    fromHelper.on('data', (chunk: string) => {
      text += chunk;
    });
    const end = () => resolve(text === '0\n');
    fromHelper.on('end', end);
    fromHelper.on('error', end);
    fromHelper.on('close', end);
  });
}

/**
 * Hands the waiting helper the sandbox `pid` (its stdin is `toHelper`) and resolves to its
 * `status` (`remountStatus`). Where the kernel or a missing perl refuses, the command runs all
 * the same, bounded by the byte cap and the memory cgroup.
 */
export function capTmpfsInodes(
  toHelper: Writable,
  status: Promise<boolean>,
  pid: number,
): Promise<boolean> {
  toHelper.end(`${pid}\n`);
  return status;
}
