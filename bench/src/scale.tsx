import { createSession, run, type Session } from '@agate/core';
import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { collectGarbage, cpuMs, type Summary, summarize } from './stats.js';
import { BenchAgent, benchModel } from './workload.js';

/**
 * Many sessions in one process (issue 27): a thousand agents at once, each a few ticks with a
 * tool call per tick, on a scripted model that takes 5 ms to answer (so the sessions really
 * interleave on the event loop, as they would waiting on a provider). CPU per tick is compared
 * with one session running alone on the same model; memory per idle session is measured in a
 * child process of its own.
 */
export const SCALE_SESSIONS = 1_000;
export const SCALE_TICKS = 10;
export const SCALE_LATENCY_MS = 5;
/** CPU per tick with a thousand sessions at once, over a single session's. */
export const SCALE_CPU_TARGET = 1.2;
/** Heap per idle session holding about 100 timeline messages: 200 kB (issue 27), not KiB. */
export const IDLE_SESSION_TARGET_BYTES = 200_000;

export interface ScaleResult {
  sessions: number;
  ticks: number;
  latencyMs: number;
  reps: number;
  /** CPU ms per tick, one session at a time (one sample per repetition). */
  single: Summary;
  /** CPU ms per tick, all sessions at once (one sample per repetition). */
  concurrent: Summary;
  /** concurrent / single, per repetition. */
  ratio: Summary;
  /** Ticks per second of wall time with all sessions at once. */
  throughput: Summary;
  /** Wall time of one batch of all sessions, ms. */
  batchWallMs: Summary;
}

/** The bench model, answering after `latencyMs` (a timer, not CPU work). */
function slowModel(ticks: number, latencyMs: number): LanguageModelV4 {
  const inner = benchModel(ticks);
  const wait = () => new Promise((resolve) => setTimeout(resolve, latencyMs));
  return {
    specificationVersion: 'v4',
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: {},
    async doGenerate(options: LanguageModelV4CallOptions) {
      await wait();
      return inner.doGenerate(options);
    },
    async doStream(options: LanguageModelV4CallOptions) {
      await wait();
      return inner.doStream(options);
    },
  };
}

async function oneRun(ticks: number, latencyMs: number): Promise<void> {
  const result = await run(<BenchAgent />, {
    model: slowModel(ticks, latencyMs),
    maxTicks: ticks + 1,
  });
  if (result.status !== 'completed' || result.ticks !== ticks) {
    throw new Error(`a scale run ended ${result.status} after ${result.ticks} ticks`);
  }
}

/** CPU per tick of `count` runs one after another (the single-session baseline). */
async function sequential(count: number, ticks: number, latencyMs: number): Promise<number> {
  const start = cpuMs();
  for (let i = 0; i < count; i++) await oneRun(ticks, latencyMs);
  return (cpuMs() - start) / (count * ticks);
}

/** CPU per tick and wall time of `count` runs started together. */
async function concurrent(
  count: number,
  ticks: number,
  latencyMs: number,
): Promise<{ cpu: number; wallMs: number }> {
  const start = cpuMs();
  const wallStart = performance.now();
  await Promise.all(Array.from({ length: count }, () => oneRun(ticks, latencyMs)));
  return { cpu: (cpuMs() - start) / (count * ticks), wallMs: performance.now() - wallStart };
}

export async function measureScale(
  options: { sessions?: number; reps: number; singleRuns: number },
  log: (line: string) => void = () => {},
): Promise<ScaleResult> {
  const sessions = options.sessions ?? SCALE_SESSIONS;
  const ticks = SCALE_TICKS;
  const latencyMs = SCALE_LATENCY_MS;
  // Warm-up: JIT and module state for both shapes.
  await sequential(5, ticks, latencyMs);
  await concurrent(Math.min(100, sessions), ticks, latencyMs);
  const single: number[] = [];
  const many: number[] = [];
  const ratios: number[] = [];
  const throughput: number[] = [];
  const wall: number[] = [];
  for (let rep = 0; rep < options.reps; rep++) {
    const alone = await sequential(options.singleRuns, ticks, latencyMs);
    const together = await concurrent(sessions, ticks, latencyMs);
    single.push(alone);
    many.push(together.cpu);
    ratios.push(together.cpu / alone);
    throughput.push((sessions * ticks) / (together.wallMs / 1000));
    wall.push(together.wallMs);
    log(
      `  rep ${rep + 1}/${options.reps}: one session ${alone.toFixed(3)} ms CPU/tick, ` +
        `${sessions} at once ${together.cpu.toFixed(3)} ms CPU/tick, ${Math.round(together.wallMs)} ms wall`,
    );
  }
  return {
    sessions,
    ticks,
    latencyMs,
    reps: options.reps,
    single: summarize(single),
    concurrent: summarize(many),
    ratio: summarize(ratios),
    throughput: summarize(throughput),
    batchWallMs: summarize(wall),
  };
}

export interface IdleSessionMemory {
  sessions: number;
  /** Timeline messages each idle session holds. */
  messages: number;
  /** Heap after GC per idle session (bytes), over the heap before the sessions existed. */
  bytesPerSession: number;
  /** The same with the timelines' own messages taken out: what Agate adds around them. */
  bytesPerSessionBesideMessages: number;
  gcExposed: boolean;
}

const IDLE_TICKS = 50;

/**
 * Sessions that ran and now wait (between runs, as a server holds them): each ran 50 ticks of
 * the workload, so it holds 101 timeline messages, its React root and its state. Run in a child
 * process, so nothing else shares the heap.
 */
export async function measureIdleSessions(count: number): Promise<IdleSessionMemory> {
  const make = async () => {
    const session = createSession(<BenchAgent />, {
      model: benchModel(IDLE_TICKS + 1),
      maxTicks: IDLE_TICKS + 2,
    });
    const result = await session.run();
    if (result.status !== 'completed') throw new Error(`idle-session run ended ${result.status}`);
    return session;
  };
  await make(); // warm-up
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const sessions: Session[] = [];
  for (let i = 0; i < count; i++) sessions.push(await make());
  collectGarbage();
  const after = process.memoryUsage().heapUsed;
  const messages = sessions[0]!.state.timeline.length;
  // The messages themselves, measured the same way: copies of one session's timeline.
  collectGarbage();
  const beforeCopies = process.memoryUsage().heapUsed;
  const copies = Array.from(
    { length: count },
    () => structuredClone(sessions[0]!.state.timeline) as unknown[],
  );
  collectGarbage();
  const messageBytes = (process.memoryUsage().heapUsed - beforeCopies) / count;
  if (copies.length !== count || sessions.length !== count) throw new Error('unreachable');
  const bytesPerSession = (after - before) / count;
  return {
    sessions: count,
    messages,
    bytesPerSession,
    bytesPerSessionBesideMessages: bytesPerSession - messageBytes,
    gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
  };
}
