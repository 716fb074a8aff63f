import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times. */
const HZ = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface ProcStat {
  pid: number;
  ppid: number;
  /** Own user + system time, ms. */
  cpuMs: number;
  /** Of its children that ended and were waited for, ms. */
  childrenMs: number;
}

function stat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces: the fields start after its closing parenthesis.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const n = (i: number) => Number(fields[i - 3]);
    return {
      pid,
      ppid: n(4),
      cpuMs: ((n(14) + n(15)) * 1000) / HZ,
      childrenMs: ((n(16) + n(17)) * 1000) / HZ,
    };
  } catch {
    return undefined;
  }
}

/** CPU time a process has used (its own), ms; undefined once it is gone. */
export function processCpuMs(pid: number): number | undefined {
  return stat(pid)?.cpuMs;
}

/**
 * CPU time a PostgreSQL server has used, ms: the postmaster's own and its ended children's,
 * plus its live children's (the backends, the WAL writer, the checkpointer...).
 */
export function postgresCpuMs(port: number): number | undefined {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
  const postmaster = all.find((pid) => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return cmd[0]?.endsWith('/postgres') && cmd.includes(String(port));
    } catch {
      return false;
    }
  });
  if (postmaster === undefined) return undefined;
  const root = stat(postmaster);
  if (root === undefined) return undefined;
  let total = root.cpuMs + root.childrenMs;
  for (const pid of all) {
    const s = stat(pid);
    if (s?.ppid === postmaster) total += s.cpuMs;
  }
  return total;
}

/** CPU time the whole machine spent busy (every core, not idle or waiting on I/O), ms. */
export function machineBusyMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [, ...values] = line.trim().split(/\s+/);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = values.map(Number);
  return ((user + nice + system + irq + softirq + steal) * 1000) / HZ;
}
