/**
 * Agate's own tick (issue 51 item 2): a run made from scratch, per tick, minus the same AI SDK
 * calls made alone with the arguments Agate prepared for them; and where the rest goes, by part,
 * from a CPU profile of the same runs. Runs in its own child process (own-tick/child.ts), which
 * taps `generateText` before `@agate/core` loads (sdk-tap.ts).
 */
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { fileURLToPath } from 'node:url';
import { generateText } from 'ai';
import { measureInterleaved } from '../interleaved.js';
import { cpuMs, type Summary } from '../stats.js';
import { pairedPerRep, perRep } from '../tick-overhead.js';
import { benchModel, FINAL_TEXT, runAgate } from '../workload.js';
import { bundleModules, type CpuProfile, partsOfProfile, type TickPart } from './parts.js';
import { tapGenerateText } from './sdk-tap.js';

export interface OwnTickOptions {
  ticks: number;
  tools: number;
  reps: number;
  /** Rounds per repetition (a round runs both sides once, back to back). */
  inner: number;
  /** Unmeasured runs of both sides first. */
  warmup: number;
  /** Runs of Agate profiled for the parts. */
  profileRuns: number;
  log?: (line: string) => void;
}

export interface OwnTickResult {
  ticks: number;
  tools: number;
  reps: number;
  inner: number;
  /** CPU ms per tick of each side, one sample per repetition (its fastest run). */
  perTick: Record<OwnTickSide, Summary>;
  /** Agate − the SDK calls alone, per tick, per repetition (each side's fastest run in it). */
  own: Summary;
  /** The same, the median of each repetition's paired rounds. */
  ownPaired: Summary;
  /** Profile of `profileRuns` runs: CPU ms per tick by part (the profiler's overhead included). */
  parts: Record<TickPart, number>;
  profiledTicks: number;
  /** The profiler's sampling interval, microseconds. */
  samplingUs: number;
}

export type OwnTickSide = 'agate' | 'sdkCalls';
const SIDES: readonly OwnTickSide[] = ['agate', 'sdkCalls'];
const SAMPLING_US = 100;

type Request = Parameters<typeof generateText>[0];

/** The arguments of every `generateText` call one Agate run made, in order. */
async function captureRequests(ticks: number, tools: number): Promise<Request[]> {
  const requests: Request[] = [];
  const untap = tapGenerateText((request) => requests.push(request as Request));
  try {
    await runAgate(ticks, { tools });
  } finally {
    untap();
  }
  if (requests.length !== ticks) {
    throw new Error(
      `captured ${requests.length} generateText calls of a ${ticks}-tick run: the tap must be registered before @agate/core loads, from its built dist/`,
    );
  }
  return requests;
}

/**
 * The calls alone: each captured request as it was, with a new scripted model per run (the
 * Agate side makes one per run too), one after another, as the ticks made them.
 */
async function replay(requests: readonly Request[], ticks: number, tools: number): Promise<number> {
  const model = benchModel(ticks, tools);
  let last: Awaited<ReturnType<typeof generateText>> | undefined;
  for (const request of requests) last = await generateText({ ...request, model } as Request);
  if (last?.text !== FINAL_TEXT || model.calls !== ticks) {
    throw new Error(
      `the replayed calls did not end with the run's final reply (${model.calls} calls)`,
    );
  }
  return requests.length;
}

/** Every bundle file of `@agate/core`, read once: its line-to-module map. */
function agateModules(): (url: string) => ((line: number) => string | undefined) | undefined {
  const maps = new Map<string, ((line: number) => string | undefined) | undefined>();
  return (url) => {
    if (!maps.has(url)) {
      let map: ((line: number) => string | undefined) | undefined;
      try {
        map = bundleModules(readFileSync(fileURLToPath(url), 'utf8'));
      } catch {
        map = undefined;
      }
      maps.set(url, map);
    }
    return maps.get(url);
  };
}

async function profileParts(
  options: OwnTickOptions,
): Promise<{ parts: Record<TickPart, number>; ticks: number }> {
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params, (error, result) =>
        error ? reject(error) : resolve(result as T),
      ),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: SAMPLING_US });
  await post('Profiler.start');
  let ticks = 0;
  let profile: CpuProfile;
  try {
    for (let i = 0; i < options.profileRuns; i++) {
      ticks += (await runAgate(options.ticks, { tools: options.tools })).ticks;
    }
  } finally {
    profile = (await post<{ profile: CpuProfile }>('Profiler.stop')).profile;
    session.disconnect();
  }
  const totals = partsOfProfile(profile, agateModules());
  const parts = Object.fromEntries(
    Object.entries(totals).map(([part, total]) => [part, total / ticks]),
  ) as Record<TickPart, number>;
  return { parts, ticks };
}

export async function measureOwnTick(options: OwnTickOptions): Promise<OwnTickResult> {
  const { ticks, tools } = options;
  const requests = await captureRequests(ticks, tools);
  const measured = await measureInterleaved(
    SIDES,
    async (side) =>
      side === 'agate' ? (await runAgate(ticks, { tools })).ticks : replay(requests, ticks, tools),
    { ...options, unit: 'tick' },
  );
  const minus = (a: number, b: number) => a - b;
  const own = perRep(measured.samples, 'agate', 'sdkCalls', minus);
  const ownPaired = pairedPerRep(measured.rounds, 'agate', 'sdkCalls', minus);
  if (own === undefined || ownPaired === undefined) throw new Error('no own-tick samples');
  options.log?.(`  profiling ${options.profileRuns} runs for the parts...`);
  const started = cpuMs();
  const { parts, ticks: profiledTicks } = await profileParts(options);
  options.log?.(`  profiled ${profiledTicks} ticks in ${(cpuMs() - started).toFixed(0)} ms CPU`);
  return {
    ticks,
    tools,
    reps: options.reps,
    inner: options.inner,
    perTick: measured.perUnit as Record<OwnTickSide, Summary>,
    own,
    ownPaired,
    parts,
    profiledTicks,
    samplingUs: SAMPLING_US,
  };
}
