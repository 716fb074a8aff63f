import { createHash } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';

/**
 * How much slower than an idle, ordinary machine this one runs right now, measured once per
 * process: a fixed piece of hashing is timed by the wall clock and by the CPU time the process
 * got for it. Wall / CPU is the share of a core others left us (1 when idle, 2 with another
 * busy process on the core); CPU / the reference CPU time is how much slower the core itself
 * is. A time limit that must exist in a test (a handshake timeout, "every run parked within
 * 60 s") is that limit times this factor, instead of a number tuned on one idle machine.
 */
export interface MachineSpeed {
  /** The factor limits are multiplied by: at least 1, at most `MAX_SLOWNESS`. */
  readonly slowness: number;
  /** Wall time of the probe, ms. */
  readonly wallMs: number;
  /** CPU time the process got during the probe, ms. */
  readonly cpuMs: number;
}

/**
 * The probe's CPU time on the reference machine (the project's 2-core AMD EPYC VM: 19-21 ms,
 * whatever its load; `AGATE_PRINT_MACHINE_SPEED=1` prints a run's figures).
 */
const REFERENCE_CPU_MS = 20;
/** A limit is never scaled past this: a machine 30 times slower is broken, not slow. */
export const MAX_SLOWNESS = 30;
/** The probe: this many SHA-256 digests of a 64 KiB buffer (about 20 ms of CPU). */
const PROBE_ROUNDS = 400;

let measured: MachineSpeed | undefined;

/**
 * The slowness a process measured first, handed to the processes it starts (vitest's workers
 * inherit the environment of the process that loaded the config): a worker's limits are never
 * below the run's.
 */
export const RUN_SLOWNESS_ENV = 'AGATE_RUN_SLOWNESS';

/** The machine's speed, measured on the first call in this process. */
export function machineSpeed(): MachineSpeed {
  measured ??= measure();
  return measured;
}

/**
 * The slowness others' load predicts for a run about to start, from the 1-minute load average
 * (pure: the reading is `measure`'s). The probe alone cannot see it on a machine with a core to
 * spare: with one core of two held by another process, the probe runs on the free one and
 * reads 1, then the run's own workers share that one core and everything takes 2-3 times
 * longer. One process of the load is taken as the run's own start (the step before it:
 * install, type-check); what is left is others', and the run gets the cores they leave
 * (at least a quarter of them, so this alone never says more than 4).
 */
export function loadSlowness(loadAverage: number, cores: number): number {
  if (!(cores >= 1) || !Number.isFinite(loadAverage) || loadAverage < 0) return 1;
  const others = Math.max(0, loadAverage - 1);
  const left = Math.max(cores - others, cores / 4);
  return cores / left;
}

/**
 * A process's slowness: the highest of its probe's, the run's and others' load's. The first process of
 * a run (no `inherited`) also weighs others' load (`loadSlowness`); the processes it starts
 * do not, since the load they see is largely the run's own workers.
 */
export function runSlowness(
  probe: number,
  load: { loadAverage: number; cores: number } | undefined,
  inherited: number | undefined,
): number {
  const fromLoad = load === undefined ? 1 : loadSlowness(load.loadAverage, load.cores);
  const base =
    inherited !== undefined && Number.isFinite(inherited) && inherited >= 1 ? inherited : 1;
  // The highest, not a product: a probe that met the others' load already counts it.
  return Math.min(MAX_SLOWNESS, Math.max(probe, base, fromLoad));
}

/** `ms` scaled by the machine's measured slowness (never less than `ms`), rounded up. */
export function scaledLimit(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) {
    throw new RangeError(`scaledLimit: expected a finite, non-negative number of ms, got ${ms}`);
  }
  return Math.ceil(ms * machineSpeed().slowness);
}

/** The factor from a probe's wall and CPU times (pure: the measuring is `measure`). */
export function slownessOf(
  wallMs: number,
  cpuMs: number,
  referenceCpuMs = REFERENCE_CPU_MS,
): number {
  if (!(wallMs > 0) || !(cpuMs > 0) || !(referenceCpuMs > 0)) return 1;
  // CPU time can exceed wall time by a clock tick's rounding: a share above 1 is 1.
  const contention = Math.max(1, wallMs / cpuMs);
  const core = Math.max(1, cpuMs / referenceCpuMs);
  return Math.min(MAX_SLOWNESS, contention * core);
}

function measure(): MachineSpeed {
  const data = Buffer.alloc(64 * 1024, 7);
  // Warmed up first: the first rounds also compile the loop.
  for (let i = 0; i < 20; i++) createHash('sha256').update(data).digest();
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  let digest = '';
  for (let i = 0; i < PROBE_ROUNDS; i++) {
    digest = createHash('sha256').update(data).update(digest).digest('hex');
  }
  const wallMs = performance.now() - wallBefore;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const given = process.env[RUN_SLOWNESS_ENV];
  const inherited = given === undefined || given === '' ? undefined : Number(given);
  const load =
    inherited === undefined
      ? { loadAverage: loadavg()[0] ?? 0, cores: availableParallelism() }
      : undefined;
  const slowness = runSlowness(slownessOf(wallMs, cpuMs), load, inherited);
  if (inherited === undefined) process.env[RUN_SLOWNESS_ENV] = String(slowness);
  const speed = { slowness, wallMs, cpuMs };
  if (process.env.AGATE_PRINT_MACHINE_SPEED === '1') {
    const from = load
      ? `load ${load.loadAverage.toFixed(2)} on ${load.cores} cores`
      : `the run's ${inherited}`;
    process.stderr.write(
      `machine speed: slowness ${slowness.toFixed(2)} (probe ${wallMs.toFixed(1)} ms wall, ${cpuMs.toFixed(1)} ms CPU; ${from})\n`,
    );
  }
  return speed;
}
