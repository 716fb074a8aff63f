import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { requireSystem } from '@agate/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { commandEnvironment, resolvePolicy } from './policy.js';
import { launcherScript, runShellCommand } from './run-command.js';
import {
  capTmpfsInodes,
  inodeCap,
  REMOUNT_SCRIPT,
  remountHelperArgs,
  remountOptions,
  remountStatus,
} from './tmpfs-inodes.js';

const sandboxWorks = requireSystem({
  tests: 'tmpfs inode cap helper',
  needs: 'bubblewrap (bwrap) with user namespaces',
  enable: 'apt-get install -y bubblewrap',
  debianPackage: 'bubblewrap',
  command: 'bwrap',
  probe: () =>
    spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--', '/bin/true']).status === 0,
});

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

  it('starts the helper beside bubblewrap, outside the cgroup prelude, with none of its descriptors', () => {
    const args = remountHelperArgs(1024 * 1024);
    const script = launcherScript("echo $$ > '/sys/fs/cgroup/x/cgroup.procs' || exit 125; ", 7);
    expect(args).toHaveLength(7);
    expect(script.startsWith('perl "$')).toBe(true);
    expect(script.indexOf('echo $$')).toBeGreaterThan(script.indexOf('& shift 7'));
    // The helper holds neither the info pipe (the host reads it to its end) nor the gate's.
    expect(script).toContain('3<&- 4>&- 5<&- 8>&- &');
    // The launcher closes the helper's two pipes before it becomes bubblewrap.
    expect(script).toMatch(/exec 6<&- 7>&-; echo \$\$/);
    expect(launcherScript('', 0)).toBe('exec 6<&- 7>&-; exec "$@"');
  });
});

describe("the remount helper's answer", () => {
  it('is heard even when the pipe was drained and ended before the pid was sent', async () => {
    // What a timeout's kill does: the launcher exits, Node drains its readable pipes (its
    // flushStdio resumes them) and they end, all before the setup reaches the caps. A listener
    // added only then would wait forever; remountStatus listens from the spawn on.
    const fromHelper = new PassThrough();
    const status = remountStatus(fromHelper);
    fromHelper.resume();
    fromHelper.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(fromHelper.readableEnded).toBe(true);
    await expect(capTmpfsInodes(new PassThrough(), status, 1)).resolves.toBe(false);
  });

  it('is yes only for a helper that answered 0', async () => {
    const ok = new PassThrough();
    const okStatus = remountStatus(ok);
    ok.end('0\n');
    await expect(okStatus).resolves.toBe(true);
    const refused = new PassThrough();
    const refusedStatus = remountStatus(refused);
    refused.end('6\n');
    await expect(refusedStatus).resolves.toBe(false);
  });
});

describe.runIf(sandboxWorks)('the pre-started remount helper', () => {
  const base = mkdtempSync(join(tmpdir(), 'agate-remount-test-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  // Reachable for the unprivileged user a root host runs bubblewrap as.
  chmodSync(base, 0o755);
  const cwd = mkdtempSync(join(base, 'cwd-'));
  chmodSync(cwd, 0o777);

  /** A bubblewrap that answers the probe, then as told: hangs before reporting, or fails. */
  const fakeBwrap = (name: string, whenRun: string): string => {
    const path = join(base, name);
    writeFileSync(path, `#!/bin/sh\ncase " $* " in *" --info-fd "*) ${whenRun} ;; esac\nexit 0\n`, {
      mode: 0o755,
    });
    return path;
  };

  /** The remount helpers alive now with this size in their arguments (a zombie has no cmdline). */
  const helpers = (tmpSizeBytes: number): number[] =>
    readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          // Its own argument, or the host-user helper's `c:` one on a root host.
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(
            `${remountOptions(tmpSizeBytes)}\0`,
          );
        } catch {
          return false;
        }
      })
      .map(Number);

  const run = (bwrap: string, tmpSizeBytes: number, signal: AbortSignal) =>
    runShellCommand({
      command: 'true',
      policy: resolvePolicy(cwd, { tmpSizeBytes }),
      cwd,
      env: commandEnvironment(process.env, undefined),
      timeoutMs: 30_000,
      maxOutputChars: 1000,
      signal,
      bwrap,
    });

  it('is killed with the sandbox when the call is aborted mid-setup', async () => {
    // A size no other test uses: it names this call's helper.
    const tmpSizeBytes = 64 * 1024 * 1024 + 4096 * (1 + Math.floor(Math.random() * 10_000));
    const abort = new AbortController();
    const call = run(fakeBwrap('hangs', 'exec sleep 30'), tmpSizeBytes, abort.signal);
    // Started beside bubblewrap, it waits for a pid that never comes. The launcher's own
    // processes carry the same argument for a moment (and a process being exec'd shows no
    // command line), so it counts as started once seen in five polls in a row.
    const deadline = Date.now() + 10_000;
    for (let seen = 0; seen < 5 && Date.now() < deadline; ) {
      seen = helpers(tmpSizeBytes).length > 0 ? seen + 1 : 0;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(helpers(tmpSizeBytes).length).toBeGreaterThan(0);
    abort.abort();
    const result = await call;
    expect(result.exitCode).not.toBe(0);
    expect(helpers(tmpSizeBytes)).toEqual([]);
  }, 30_000);

  it('is killed with the sandbox when the signal aborted before the spawn', async () => {
    const tmpSizeBytes = 64 * 1024 * 1024 + 4096 * (40_000 + Math.floor(Math.random() * 10_000));
    const marker = `35.${process.pid}${Math.floor(Math.random() * 1000)}`;
    const abort = new AbortController();
    abort.abort();
    const started = Date.now();
    const result = await runShellCommand({
      command: `sleep ${marker} & sleep ${marker}`,
      policy: resolvePolicy(cwd, { tmpSizeBytes }),
      cwd,
      env: commandEnvironment(process.env, undefined),
      timeoutMs: 60_000,
      maxOutputChars: 1000,
      signal: abort.signal,
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.exitCode).not.toBe(0);
    expect(helpers(tmpSizeBytes)).toEqual([]);
    const sleeping = readdirSync('/proc').filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    });
    expect(sleeping).toEqual([]);
  }, 30_000);

  it('exits when the sandbox never starts', async () => {
    const tmpSizeBytes = 64 * 1024 * 1024 + 4096 * (20_000 + Math.floor(Math.random() * 10_000));
    const result = await run(
      fakeBwrap('fails', 'echo "bwrap: no" >&2; exit 1'),
      tmpSizeBytes,
      new AbortController().signal,
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('bwrap: no');
    expect(helpers(tmpSizeBytes)).toEqual([]);
  }, 30_000);
});
