import { fileURLToPath } from 'node:url';
import { createSession, McpServer, System, Timeline, Tools, User } from '@agate/core';
import { createMCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { generateText, isStepCount, type ModelMessage, type ToolSet } from 'ai';
import { cpuMs, median, roundOrder, type Summary, summarize } from './stats.js';

/**
 * A tick whose call goes through `<McpServer>` may cost at most this much of the same tick with
 * the AI SDK MCP client's tools mounted in `<Tools>`: the MCP layer itself (issue 42). The whole
 * tick against the plain loop is reported beside it and held to the tick targets.
 */
export const MCP_CALL_TARGET = 1.1;

export interface McpCallResult {
  reps: number;
  /** Calls per repetition (one per tick / step). */
  calls: number;
  /** CPU ms (this process) per tick: `<McpServer>` (stdio, echo) in `session.tick()`s. */
  agate: Summary;
  /** CPU ms (this process) per step: `generateText` over the AI SDK MCP client's tools. */
  plain: Summary;
  /** CPU ms (this process) per tick: the AI SDK MCP client's tools in `<Tools>`, same ticks. */
  agateTools?: Summary;
  /** The MCP layer: `<McpServer>` / `<Tools>` over the client's tools, per repetition. */
  layer?: Summary;
  /** The same, as the median of each repetition's rounds' ratios. */
  layerPaired?: Summary;
  /** Wall ms per tick / step (includes the server's answer; on a shared machine, its scheduling). */
  agateWall: Summary;
  plainWall: Summary;
  /** Agate / plain, per repetition (each side's fastest run). */
  ratio: Summary;
  /** The same, as the median of each repetition's rounds' ratios. */
  pairedRatio: Summary;
  /**
   * The call itself, in the same runs: CPU ms (this process) from the call's start to its
   * result, as each loop reports them (Agate: `tool:call` to `tool:result`, which spans its
   * guards, input validation, time limit, output cap and receipt; the AI SDK: its
   * `onToolExecutionStart` to `onToolExecutionEnd`, its input having been validated before).
   */
  callAgate: Summary;
  callPlain: Summary;
  /** Wall ms of the call (the server's answer included), the same windows. */
  callAgateWall: Summary;
  callPlainWall: Summary;
  /** Agate / plain call CPU, per repetition (each side's run with the fastest call CPU). */
  callRatio: Summary;
  /** The same, as the median of each repetition's rounds' ratios. */
  callPairedRatio: Summary;
}

export const EVERYTHING = fileURLToPath(
  import.meta.resolve('@modelcontextprotocol/server-everything/dist/index.js'),
);
export const SERVER = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
/** Runs of each side per repetition; the repetition's figure is the fastest. */
export const MCP_INNER = 5;
export const SYSTEM = 'Echo what you are asked to.';
export const MESSAGES: ModelMessage[] = [
  { role: 'user', content: 'Echo the numbers, one call each.' },
];

const USAGE: LanguageModelV4Usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

/** A model that calls `echo` on every call (nothing kept per call, like the tick benchmark's). */
export function echoModel(): LanguageModelV4 {
  let calls = 0;
  return {
    specificationVersion: 'v4',
    provider: 'agate-bench',
    modelId: 'echo',
    supportedUrls: {},
    async doGenerate(options: LanguageModelV4CallOptions) {
      options.abortSignal?.throwIfAborted();
      const index = calls++;
      return {
        content: [
          {
            type: 'tool-call',
            toolCallId: `call-${index}`,
            toolName: 'echo',
            input: JSON.stringify({ message: `call ${index}` }),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage: USAGE,
        warnings: [],
      };
    },
    async doStream() {
      throw new Error('the MCP benchmark model does not stream');
    },
  };
}

function Agent() {
  return (
    <>
      <System>{SYSTEM}</System>
      <User>{MESSAGES[0]!.content as string}</User>
      <McpServer name="everything" {...SERVER} include={['echo']} />
      <Timeline />
    </>
  );
}

/** The same agent with the AI SDK MCP client's `echo` mounted in `<Tools>` instead. */
function ClientToolsAgent(props: { tools: ToolSet }) {
  return (
    <>
      <System>{SYSTEM}</System>
      <User>{MESSAGES[0]!.content as string}</User>
      <Tools tools={props.tools} />
      <Timeline />
    </>
  );
}

interface Timing {
  /** Per tick (step): CPU ms of this process, and wall ms. */
  cpu: number;
  wall: number;
  /** Per call, from its start to its result: CPU ms of this process, and wall ms. */
  callCpu: number;
  callWall: number;
}

/**
 * Sums the time between each call's start and its result, while `on`: both loops report the
 * two moments through a callback, so each side pays for one callback pair per call.
 */
class CallClock {
  on = false;
  cpu = 0;
  wall = 0;
  private startCpu = 0;
  private startWall = 0;
  start(): void {
    if (!this.on) return;
    this.startWall = performance.now();
    this.startCpu = cpuMs();
  }
  end(): void {
    if (!this.on) return;
    this.cpu += cpuMs() - this.startCpu;
    this.wall += performance.now() - this.startWall;
  }
}

/**
 * After connecting, on both sides before the clock: a full GC, then untimed ticks (steps). The
 * process that just spawned a server pays for it in the ticks that follow (copy-on-write page
 * faults as the heap is touched again: a GC then costs tens of ms instead of one), which the GC
 * takes; the ticks after it re-optimize what a forced GC deoptimizes (see `collectGarbage` in
 * stats.ts). What is timed is then the calls' own cost, on both sides alike.
 */
export const MCP_SETTLE = 20;
function settle(): void {
  // Not collectGarbage: one full collection is enough here, and the ticks after it follow.
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Per tick of `calls` ticks on a session whose server is already connected: through
 * `<McpServer>`, or (`client`) through the AI SDK MCP client's tools in `<Tools>`, the client
 * made and connected before the session, as the plain side's.
 */
async function agateRep(calls: number, client?: 'client'): Promise<Timing> {
  const mcp = client
    ? await createMCPClient({ transport: new StdioMCPTransport(SERVER) })
    : undefined;
  let agent = <Agent />;
  if (mcp !== undefined) {
    const { echo } = await mcp.tools();
    if (echo === undefined) throw new Error('server-everything has no echo tool');
    agent = <ClientToolsAgent tools={{ echo }} />;
  }
  const session = createSession(agent, { model: echoModel(), streaming: false });
  const clock = new CallClock();
  session.subscribe((event) => (event.type === 'tool:call' ? clock.start() : clock.end()), {
    types: ['tool:call', 'tool:result'],
  });
  try {
    await session.tick(); // connects (not measured: the plain side connects before its clock too)
    settle();
    for (let i = 0; i < MCP_SETTLE; i++) await session.tick();
    const wall = performance.now();
    const cpu = cpuMs();
    clock.on = true;
    for (let i = 0; i < calls; i++) await session.tick();
    return {
      cpu: (cpuMs() - cpu) / calls,
      wall: (performance.now() - wall) / calls,
      callCpu: clock.cpu / calls,
      callWall: clock.wall / calls,
    };
  } finally {
    await session.close();
    session.dispose();
    await mcp?.close();
  }
}

/**
 * Per step of a `generateText` run over the tools of an MCP client made for the run and closed
 * after it, as the AI SDK's docs show (`createMCPClient`, `tools()`, then `generateText`,
 * `close()` when done): started and connected before the clock, as Agate's session connects in
 * its first tick. One run whose first `1 + MCP_SETTLE` steps are untimed (Agate's connecting
 * tick and its settling ticks), so every timed step sends the same history as the Agate tick
 * it is set against: a settling run of its own would leave the plain side's history shorter.
 */
async function plainRep(calls: number): Promise<Timing> {
  const client = await createMCPClient({ transport: new StdioMCPTransport(SERVER) });
  try {
    const { echo } = await client.tools();
    if (echo === undefined) throw new Error('server-everything has no echo tool');
    const tools = { echo };
    // The same settling as Agate's side: a GC, then untimed steps over the same client.
    settle();
    const untimed = 1 + MCP_SETTLE;
    let steps = 0;
    let from: { cpu: number; wall: number } | undefined;
    const clock = new CallClock();
    const result = await generateText({
      model: echoModel(),
      instructions: SYSTEM,
      messages: MESSAGES,
      tools,
      stopWhen: isStepCount(untimed + calls),
      // The fastest plain loop's setting (issue 42): no per-step telemetry dispatch.
      telemetry: { isEnabled: false },
      onStepEnd: () => {
        steps++;
        if (steps === untimed) {
          from = { cpu: cpuMs(), wall: performance.now() };
          clock.on = true;
        }
      },
      onToolExecutionStart: () => clock.start(),
      onToolExecutionEnd: () => clock.end(),
    });
    const cpu = cpuMs();
    const wall = performance.now();
    if (result.steps.length !== untimed + calls || from === undefined) {
      throw new Error('plain MCP loop stopped early');
    }
    return {
      cpu: (cpu - from.cpu) / calls,
      wall: (wall - from.wall) / calls,
      callCpu: clock.cpu / calls,
      callWall: clock.wall / calls,
    };
  } finally {
    await client.close();
  }
}

/**
 * A tool call through `<McpServer>` (stdio, the reference server's `echo`) against the same
 * tick with the AI SDK MCP client's tools mounted in `<Tools>` (the MCP layer, judged), and
 * against the same call in a plain `generateText` loop over the client's tools: alternating
 * repetitions, each side starting its own server and connecting before the clock starts
 * (a session's connection is its own; the plain side makes a client per run, as the AI SDK's
 * docs do), CPU time of this process per tick (as the tick benchmark: wall time on a shared
 * machine is mostly other processes' scheduling, the server's included), the fastest of three
 * runs of each side per repetition; wall time is reported beside it.
 *
 * Both sides spawn their server for each run, and both settle before the clock (`MCP_SETTLE`):
 * spawning a child process costs the parent CPU in the ticks that follow (measured: a spawned
 * `true` before the plain loop's timed run raised its CPU per step about as much as a server of
 * its own did), so a side that just spawned and one that did not are not like for like, and
 * neither figure would be the call's own cost.
 */
export async function measureMcpCall(reps: number, calls: number): Promise<McpCallResult> {
  await agateRep(5);
  await agateRep(5, 'client');
  await plainRep(5);
  type Best = (Timing | undefined)[];
  const faster = (x: Timing | undefined, y: Timing) => (x === undefined || y.cpu < x.cpu ? y : x);
  const quicker = (x: Timing | undefined, y: Timing) =>
    x === undefined || y.callCpu < x.callCpu ? y : x;
  const bestA: Best = Array.from({ length: reps }, () => undefined);
  const bestP: Best = Array.from({ length: reps }, () => undefined);
  const bestT: Best = Array.from({ length: reps }, () => undefined);
  const layerRounds = Array.from({ length: reps }, () => [] as number[]);
  const callA: Best = Array.from({ length: reps }, () => undefined);
  const callP: Best = Array.from({ length: reps }, () => undefined);
  const rounds = Array.from({ length: reps }, () => [] as number[]);
  const callRounds = Array.from({ length: reps }, () => [] as number[]);
  // Rounds of one run each, back to back: a round's ratio is taken under one machine phase, a
  // repetition's is the median of its rounds, and the rounds go round-robin over the
  // repetitions (see tick-overhead.ts), so a burst of noise touches a round of several.
  for (let round = 0; round < MCP_INNER; round++) {
    for (const i of roundOrder(reps, round)) {
      // The three sides in a rotating order: each goes first, second and third in turn.
      const sides = [
        () => agateRep(calls),
        () => agateRep(calls, 'client'),
        () => plainRep(calls),
      ] as const;
      const timings: Timing[] = [];
      for (let k = 0; k < sides.length; k++) {
        const side = (i + round + k) % sides.length;
        timings[side] = await sides[side]!();
      }
      const [ta, tt, tp] = timings as [Timing, Timing, Timing];
      bestA[i] = faster(bestA[i], ta);
      bestT[i] = faster(bestT[i], tt);
      bestP[i] = faster(bestP[i], tp);
      layerRounds[i]!.push(ta.cpu / tt.cpu);
      callA[i] = quicker(callA[i], ta);
      callP[i] = quicker(callP[i], tp);
      rounds[i]!.push(ta.cpu / tp.cpu);
      callRounds[i]!.push(ta.callCpu / tp.callCpu);
    }
  }
  const a = bestA as Timing[];
  const p = bestP as Timing[];
  const ca = callA as Timing[];
  const cp = callP as Timing[];
  const t = bestT as Timing[];
  const paired = rounds.map((r) => median(r));
  return {
    reps,
    calls,
    agate: summarize(a.map((t) => t.cpu)),
    plain: summarize(p.map((t) => t.cpu)),
    agateTools: summarize(t.map((x) => x.cpu)),
    layer: summarize(a.map((x, i) => x.cpu / t[i]!.cpu)),
    layerPaired: summarize(layerRounds.map((r) => median(r))),
    agateWall: summarize(a.map((t) => t.wall)),
    plainWall: summarize(p.map((t) => t.wall)),
    ratio: summarize(a.map((t, i) => t.cpu / p[i]!.cpu)),
    pairedRatio: summarize(paired),
    callAgate: summarize(ca.map((t) => t.callCpu)),
    callPlain: summarize(cp.map((t) => t.callCpu)),
    callAgateWall: summarize(ca.map((t) => t.callWall)),
    callPlainWall: summarize(cp.map((t) => t.callWall)),
    callRatio: summarize(ca.map((t, i) => t.callCpu / cp[i]!.callCpu)),
    callPairedRatio: summarize(callRounds.map((r) => median(r))),
  };
}
