import { accessSync, constants, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeCrypto } from '../ground/builtins.js';

/**
 * Caps on one command: the processes it may run at once (a fork bomb stops there) and the
 * memory it may use (an allocation past it gets the command killed, exit 137). Where a cgroup
 * can be made (cgroup v2 with the controller, or v1's pids / memory hierarchies; root, or a
 * delegated subtree) the command runs inside a fresh one with `pids.max` and `memory.max`
 * (v1: `memory.limit_in_bytes`), swap included; otherwise the shell sets `ulimit -u` to what
 * the user already runs plus the cap, and `ulimit -v` (address space) to the memory cap.
 */
export interface ResourceLimits {
  /** Shell text run before the sandbox is started (joins the cgroups, or sets the ulimits). */
  prelude: string;
  /** Whether the memory cgroup's OOM killer killed something (false without one). */
  oomKilled(): boolean;
  /** Removes the cgroups (once their processes are gone). */
  release(): Promise<void>;
}

type Controller = 'pids' | 'memory';

/** A place this process may create groups in, for one controller. */
interface Hierarchy {
  dir: string;
  v2: boolean;
}

const PROBE_FILE: Record<Controller, { v1: string; v2: string }> = {
  pids: { v1: 'pids.max', v2: 'pids.max' },
  memory: { v1: 'memory.limit_in_bytes', v2: 'memory.max' },
};

const found = new Map<Controller, Hierarchy | null>();

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** This process's own group in the v1 hierarchy of `controller` (`/` when unknown). */
function ownV1Group(controller: Controller): string {
  for (const line of readOrEmpty('/proc/self/cgroup').split('\n')) {
    const [, controllers = '', path = '/'] = line.split(':');
    if (controllers.split(',').includes(controller)) return path;
  }
  return '/';
}

/** Whether a child group made in `dir` gets the controller's file (then `dir` is usable). */
function canCreateIn(dir: string, file: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    const probe = join(
      dir,
      `agate-probe-${process.pid}-${nodeCrypto().randomBytes(3).toString('hex')}`,
    );
    mkdirSync(probe);
    const ok = readOrEmpty(join(probe, file)) !== '';
    rmdirSync(probe);
    return ok;
  } catch {
    return false;
  }
}

/**
 * The first hierarchy where `controller`'s groups can be made. v1 groups go under this
 * process's own group, so a limit the host already lives in still holds; v2 forbids groups
 * with controllers under an occupied group, so there they go at the hierarchy's root.
 */
function hierarchy(controller: Controller): Hierarchy | null {
  const known = found.get(controller);
  if (known !== undefined) return known;
  let result: Hierarchy | null = null;
  const v1Root = `/sys/fs/cgroup/${controller}`;
  // A v1 hierarchy has cgroup.procs but no cgroup.controllers (that is v2's).
  if (canAccess(join(v1Root, 'cgroup.procs')) && !canAccess(join(v1Root, 'cgroup.controllers'))) {
    for (const dir of [join(v1Root, ownV1Group(controller)), v1Root]) {
      if (canCreateIn(dir, PROBE_FILE[controller].v1)) {
        result = { dir, v2: false };
        break;
      }
    }
  }
  if (result === null) {
    for (const dir of ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']) {
      const controllers = readOrEmpty(join(dir, 'cgroup.controllers')).split(/\s+/);
      if (controllers.includes(controller) && canCreateIn(dir, PROBE_FILE[controller].v2)) {
        result = { dir, v2: true };
        break;
      }
    }
  }
  found.set(controller, result);
  return result;
}

function canAccess(path: string): boolean {
  try {
    accessSync(path);
    return true;
  } catch {
    return false;
  }
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

function writeIfPresent(path: string, value: string): void {
  if (canAccess(path)) writeFileSync(path, value);
}

/** Writes the cap of `controller` into a fresh group. */
function setLimit(group: string, controller: Controller, v2: boolean, value: number): void {
  if (controller === 'pids') {
    writeFileSync(join(group, 'pids.max'), String(value));
  } else if (v2) {
    writeFileSync(join(group, 'memory.max'), String(value));
    writeIfPresent(join(group, 'memory.swap.max'), '0');
  } else {
    writeFileSync(join(group, 'memory.limit_in_bytes'), String(value));
    // memory + swap, so the cap cannot be dodged by swapping (present only with swap accounting).
    writeIfPresent(join(group, 'memory.memsw.limit_in_bytes'), String(value));
  }
}

export function resourceLimits(limits: {
  maxProcesses: number;
  memoryBytes: number;
}): ResourceLimits {
  const wanted: Array<[Controller, number]> = [
    ['pids', limits.maxProcesses],
    ['memory', limits.memoryBytes],
  ];
  const groups = new Map<string, string>();
  let oomFile: string | undefined;
  const prelude: string[] = [];
  const fallbacks: Controller[] = [];
  const suffix = `agate-${process.pid}-${nodeCrypto().randomBytes(4).toString('hex')}`;
  for (const [controller, value] of wanted) {
    const place = hierarchy(controller);
    if (place === null) {
      fallbacks.push(controller);
      continue;
    }
    // On v2 one group carries both controllers.
    let group = groups.get(place.dir);
    try {
      if (group === undefined) {
        group = join(place.dir, suffix);
        mkdirSync(group);
        groups.set(place.dir, group);
      }
      setLimit(group, controller, place.v2, value);
      if (controller === 'memory') {
        oomFile = join(group, place.v2 ? 'memory.events' : 'memory.oom_control');
      }
    } catch {
      fallbacks.push(controller);
    }
  }
  for (const group of groups.values()) {
    prelude.push(`echo $$ > '${join(group, 'cgroup.procs')}' || exit 125; `);
  }
  if (fallbacks.includes('pids')) {
    // RLIMIT_NPROC counts every process of the user, so the cap goes on top of what runs now.
    const running = Number(readOrEmpty('/proc/loadavg').split(' ')[3]?.split('/')[1] ?? '0');
    prelude.push(`ulimit -u ${Math.max(running, 0) + limits.maxProcesses} 2>/dev/null; `);
  }
  if (fallbacks.includes('memory')) {
    prelude.push(`ulimit -v ${Math.floor(limits.memoryBytes / 1024)} 2>/dev/null; `);
  }
  return {
    prelude: prelude.join(''),
    oomKilled: () => {
      if (oomFile === undefined) return false;
      const count = /^oom_kill (\d+)$/m.exec(readOrEmpty(oomFile))?.[1];
      return count !== undefined && Number(count) > 0;
    },
    release: async () => {
      await Promise.all([...groups.values()].map(releaseGroup));
    },
  };
}
