import { createSession, run } from '@agate/core';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import { cpuMs, heapPer, type Summary, summarize } from './stats.js';
import { BenchAgent, benchModel, MESSAGES, runGenerateTextLoop, withLatency } from './workload.js';

/**
 * Many sessions in one process (issue 27): a thousand agents at once, each a few ticks with a
 * tool call per tick, on a scripted model that takes 5 ms to answer (so the sessions really
 * interleave on the event loop, as they would waiting on a provider). CPU per tick is compared
 * with one session running alone on the same model, and the throughput with a thousand runs of
 * the fastest plain loop at once (issue 42); memory per idle session is measured in a child
 * process of its own.
 */
export const SCALE_SESSIONS = 1_000;
export const SCALE_TICKS = 10;
export const SCALE_LATENCY_MS = 5;
/** CPU per tick with a thousand sessions at once, over a single session's. */
export const SCALE_CPU_TARGET = 1.2;
/** Steps per second with a thousand runs at once, over the fastest plain loop's (issue 42). */
export const SCALE_THROUGHPUT_FLOOR = 0.8;
/** Heap per idle session beside its ~100 timeline messages, 21 tools (issue 42). */
export const IDLE_SESSION_TARGET_BYTES = 64 * 1024;

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
  /** The same for as many runs of the fastest plain loop at once (steps per second). */
  plainThroughput?: Summary;
  /** Agate's throughput / the plain loop's, per repetition (the two batches ran back to back). */
  throughputRatio?: Summary;
  /** Wall time of one batch of all sessions, ms. */
  batchWallMs: Summary;
}

/** The bench model, answering after `latencyMs` (a timer, not CPU work). */
function slowModel(ticks: number, latencyMs: number): LanguageModelV4 {
  return withLatency(benchModel(ticks), latencyMs);
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

/** The fastest plain loop over the same slow model (`runGenerateTextLoop` checks its steps). */
async function onePlainRun(ticks: number, latencyMs: number): Promise<void> {
  await runGenerateTextLoop(ticks, {
    model: slowModel(ticks, latencyMs),
    preconverted: true,
    sdkTelemetryOff: true,
  });
}

/** CPU per tick and wall time of `count` runs started together. */
async function concurrent(
  count: number,
  ticks: number,
  latencyMs: number,
  once: (ticks: number, latencyMs: number) => Promise<void> = oneRun,
): Promise<{ cpu: number; wallMs: number }> {
  const start = cpuMs();
  const wallStart = performance.now();
  await Promise.all(Array.from({ length: count }, () => once(ticks, latencyMs)));
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
  await concurrent(Math.min(100, sessions), ticks, latencyMs, onePlainRun);
  const single: number[] = [];
  const many: number[] = [];
  const ratios: number[] = [];
  const throughput: number[] = [];
  const plainThroughput: number[] = [];
  const throughputRatio: number[] = [];
  const wall: number[] = [];
  const perSecond = (wallMs: number) => (sessions * ticks) / (wallMs / 1000);
  for (let rep = 0; rep < options.reps; rep++) {
    const alone = await sequential(options.singleRuns, ticks, latencyMs);
    // The Agate and plain batches take turns going first.
    const plainFirst = rep % 2 === 1;
    const plainBefore = plainFirst
      ? await concurrent(sessions, ticks, latencyMs, onePlainRun)
      : undefined;
    const together = await concurrent(sessions, ticks, latencyMs);
    const plain = plainBefore ?? (await concurrent(sessions, ticks, latencyMs, onePlainRun));
    single.push(alone);
    many.push(together.cpu);
    ratios.push(together.cpu / alone);
    throughput.push(perSecond(together.wallMs));
    plainThroughput.push(perSecond(plain.wallMs));
    throughputRatio.push(plain.wallMs / together.wallMs);
    wall.push(together.wallMs);
    log(
      `  rep ${rep + 1}/${options.reps}: one session ${alone.toFixed(3)} ms CPU/tick, ` +
        `${sessions} at once ${together.cpu.toFixed(3)} ms CPU/tick, ${Math.round(together.wallMs)} ms wall; ` +
        `plain loop ${Math.round(plain.wallMs)} ms wall`,
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
    plainThroughput: summarize(plainThroughput),
    throughputRatio: summarize(throughputRatio),
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
  /**
   * The fastest plain loop after the same run: what a caller keeps to continue the conversation
   * (the prompt's messages and `responseMessages`, every step's), per conversation.
   */
  plainBytesPerConversation?: number;
  gcExposed: boolean;
}

const IDLE_TICKS = 50;

/**
 * Sessions that ran and now wait (between runs, as a server holds them): each ran 50 ticks of
 * the workload, so it holds 101 timeline messages, its React root and its state. Beside them,
 * the fastest plain loop's conversations after the same run. Run in a child process, so
 * nothing else shares the heap.
 */
export async function measureIdleSessions(count: number): Promise<IdleSessionMemory> {
  const { bytes: bytesPerSession, items: sessions } = await heapPer(count, async () => {
    const session = createSession(<BenchAgent />, {
      model: benchModel(IDLE_TICKS + 1),
      maxTicks: IDLE_TICKS + 2,
    });
    const result = await session.run();
    if (result.status !== 'completed') throw new Error(`idle-session run ended ${result.status}`);
    return session;
  });
  const timeline = sessions[0]!.state.timeline;
  // The messages themselves, measured the same way: copies of one session's timeline.
  const { bytes: messageBytes } = await heapPer(
    count,
    async () => structuredClone(timeline) as unknown[],
  );
  const { bytes: plainBytes } = await heapPer(count, async () => {
    const { result } = await runGenerateTextLoop(IDLE_TICKS + 1, {
      preconverted: true,
      sdkTelemetryOff: true,
    });
    const { responseMessages } = result as { responseMessages: ModelMessage[] };
    return [...MESSAGES, ...responseMessages];
  });
  return {
    sessions: count,
    messages: timeline.length,
    bytesPerSession,
    bytesPerSessionBesideMessages: bytesPerSession - messageBytes,
    plainBytesPerConversation: plainBytes,
    gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
  };
}
