import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A cap on the processes one command may run at once (a fork bomb stops at it). Where a pids
 * cgroup can be made (cgroup v2 with the pids controller, or v1's pids hierarchy; root, or a
 * delegated subtree) the command runs inside a fresh one with `pids.max`; otherwise the
 * process limit (`ulimit -u`) is set to what the user already runs plus the cap.
 */
export interface ProcessLimit {
  /** Shell text run before the sandbox is started (joins the cgroup, or sets the ulimit). */
  prelude: string;
  /** Removes the cgroup (once its processes are gone). */
  release(): void | Promise<void>;
}

const CANDIDATES = ['/sys/fs/cgroup/pids', '/sys/fs/cgroup/unified', '/sys/fs/cgroup'];

let usable: string | null | undefined;

/** The first pids cgroup hierarchy this process may create groups in, or null. */
function pidsHierarchy(): string | null {
  if (usable !== undefined) return usable;
  usable = null;
  for (const root of CANDIDATES) {
    try {
      const controllers = readOrEmpty(join(root, 'cgroup.controllers'));
      const v1 = root.endsWith('/pids');
      if (!v1 && !controllers.split(/\s+/).includes('pids')) continue;
      accessSync(root, constants.W_OK);
      const probe = join(root, `agate-probe-${process.pid}`);
      mkdirSync(probe);
      const ok = readOrEmpty(join(probe, 'pids.max')) !== '';
      rmdirSync(probe);
      if (ok) {
        usable = root;
        break;
      }
    } catch {
      // Not this one.
    }
  }
  return usable;
}

/** Removes the group once the kernel has reaped its last process (a few milliseconds at most). */
async function releaseGroup(group: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      rmdirSync(group);
      return;
    } catch {
      // Still holds a dying process: kill what is left, then try again.
      for (const pid of readOrEmpty(join(group, 'cgroup.procs')).split('\n').filter(Boolean)) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

export function processLimit(maxProcesses: number): ProcessLimit {
  const root = pidsHierarchy();
  if (root !== null) {
    const group = join(root, `agate-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      mkdirSync(group);
      writeFileSync(join(group, 'pids.max'), String(maxProcesses));
      return {
        prelude: `echo $$ > '${join(group, 'cgroup.procs')}' || exit 125; `,
        release: () => releaseGroup(group),
      };
    } catch {
      // Fall through to the ulimit.
    }
  }
  // RLIMIT_NPROC counts every process of the user, so the cap goes on top of what runs now.
  const running = Number(readOrEmpty('/proc/loadavg').split(' ')[3]?.split('/')[1] ?? '0');
  return {
    prelude: `ulimit -u ${Math.max(running, 0) + maxProcesses} 2>/dev/null; `,
    release: () => {},
  };
}
