import { childProcess } from '../ground/builtins.js';

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

/** setns(2) and mount(2) numbers, per Node architecture (the sandbox runs on these two only). */
const SYSCALLS: Record<string, { setns: number; mount: number }> = {
  x64: { setns: 308, mount: 165 },
  arm64: { setns: 268, mount: 40 },
};
const MS_NOSUID = 0x2;
const MS_NODEV = 0x4;
const MS_REMOUNT = 0x20;
/** ioctl on a namespace file: the user namespace that owns it (linux/nsfs.h). */
const NS_GET_USERNS = 0xb701;
const CLONE_NEWUSER = 0x10000000;
const CLONE_NEWNS = 0x20000;

/**
 * The remount, as a Perl script (perl-base is on every Debian and Ubuntu system; host-user.ts
 * uses it the same way; Node cannot make these calls). It joins the user namespace that owns
 * the sandbox's mount namespace (not the command's own: with `--uid` bubblewrap nests a second
 * one that holds no power over the mounts), then the mount namespace, and remounts each folder.
 * bubblewrap's flags (`nosuid`, `nodev`) are given again, since a remount sets them anew.
 * Arguments: the sandbox's pid, the setns and mount numbers, the options, then the folders.
 */
export const REMOUNT_SCRIPT = `my ($pid, $setns, $mount, $opts, @dirs) = @ARGV;
open(my $mnt, '<', "/proc/$pid/ns/mnt") or exit 2;
my $owner = ioctl($mnt, ${NS_GET_USERNS}, 0); defined $owner or exit 3;
syscall(0 + $setns, 0 + $owner, ${CLONE_NEWUSER}) == 0 or exit 4;
syscall(0 + $setns, fileno($mnt), ${CLONE_NEWNS}) == 0 or exit 5;
my $type = "tmpfs";
for my $dir (@dirs) { syscall(0 + $mount, $type, $dir, $type, ${MS_REMOUNT | MS_NOSUID | MS_NODEV}, $opts) == 0 or exit 6 }`;

/** The tmpfs options of the remount: the size again and the inode cap. */
export function remountOptions(tmpSizeBytes: number): string {
  return `size=${tmpSizeBytes},nr_inodes=${inodeCap(tmpSizeBytes)}`;
}

/**
 * Caps the inodes of the sandbox `pid`'s tmpfs mounts before its command runs. Resolves to
 * whether every one was capped; where the kernel, the architecture or a missing perl refuses,
 * the byte cap and the memory cgroup stay the bound (docs/shell.md), and the command runs all
 * the same.
 */
export async function capTmpfsInodes(pid: number, tmpSizeBytes: number): Promise<boolean> {
  const numbers = SYSCALLS[process.arch];
  if (numbers === undefined) return false;
  const child = childProcess().spawn(
    'perl',
    [
      '-e',
      REMOUNT_SCRIPT,
      String(pid),
      String(numbers.setns),
      String(numbers.mount),
      remountOptions(tmpSizeBytes),
      ...CAPPED_TMPFS,
    ],
    { stdio: 'ignore' },
  );
  return new Promise((resolve) => {
    child.on('error', () => resolve(false));
    child.on('exit', (code) => resolve(code === 0));
  });
}
