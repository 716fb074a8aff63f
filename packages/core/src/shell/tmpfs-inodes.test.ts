import { describe, expect, it } from 'vitest';
import { inodeCap, REMOUNT_SCRIPT, remountOptions } from './tmpfs-inodes.js';

describe('tmpfs inode cap', () => {
  it('is one inode per 4 KiB of the size, at least 1,024', () => {
    expect(inodeCap(64 * 1024 * 1024)).toBe(16_384);
    expect(inodeCap(1024 * 1024)).toBe(1024);
    expect(inodeCap(4096)).toBe(1024);
    expect(remountOptions(64 * 1024 * 1024)).toBe('size=67108864,nr_inodes=16384');
  });

  it("remounts with bubblewrap's nosuid and nodev again (MS_REMOUNT | MS_NOSUID | MS_NODEV)", () => {
    expect(REMOUNT_SCRIPT).toContain(`$type, ${0x20 | 0x2 | 0x4}, $opts`);
    // Joins the owner of the mount namespace (NS_GET_USERNS), not the command's nested one.
    expect(REMOUNT_SCRIPT).toContain(`ioctl($mnt, ${0xb701}, 0)`);
  });
});
