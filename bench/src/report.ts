import {
  COLD_START_TARGET_MS,
  type ColdStartResult,
  IMPORT_BLOCK,
  IMPORT_RATIO_TARGET,
} from './cold-start.js';
import { BUDGET_TOKENS, type ContextBudgetResult } from './context-budget.js';
import { DBOS_TICK_EXTRA_TARGET_MS, type DbosTickResult } from './dbos-tick.js';
import type { DurableScaleResult } from './durable-scale/measure.js';
import { durableScaleRows, renderDurableScale } from './durable-scale/report.js';
import type { LongHistoryResult } from './long-history.js';
import type { MachineInfo } from './machine.js';
import { MCP_CALL_TARGET, MCP_INNER, MCP_SETTLE, type McpCallResult } from './mcp-call.js';
import type { MemoryResult } from './memory.js';
import type { OwnTickResult } from './own-tick/measure.js';
import { ownTickRow, ownTickSection } from './own-tick/report.js';
import { type EffectivenessRow, renderEffectivenessTable } from './phase/effectiveness.js';
import { POSTGRES_SAVE_RATIO_TARGET, type PostgresSaveResult } from './postgres-save.js';
import type { RenderCost } from './render-cost.js';
import { SANDBOX_EXTRA_TARGET_MS, type SandboxSpawnResult } from './sandbox-spawn.js';
import {
  IDLE_SESSION_TARGET_BYTES,
  type IdleSessionMemory,
  SCALE_CPU_TARGET,
  SCALE_THROUGHPUT_FLOOR,
  type ScaleResult,
} from './scale.js';
import type { Summary } from './stats.js';
import { mib, ms } from './stats.js';
import { SUB_AGENT_EXTRA_TARGET_MS, type SubAgentCostResult } from './sub-agent.js';
import { pairedPerRep, perRep, ratioToPlain, type TickOverheadResult } from './tick-overhead.js';
import { formatVerdict, judge, judgeAtLeast, type Verdict } from './verdict.js';
import { FASTEST_PLAIN, LOOPS, type LoopName, TELEMETRY_LOOPS, TOOL_COUNT } from './workload.js';

/**
 * Issue 42's targets, against the fastest plain loop (`FASTEST_PLAIN`): a short run made from
 * scratch, 200 ticks, and the tail of a long run, per tick of default `run()`.
 */
export const SHORT_RATIO_TARGET = 1.5;
export const TICK_RATIO_TARGET = 1.2;
export const LONG_RATIO_TARGET = 1.1;
/** How the report names the reference loop. */
const FASTEST_PLAIN_NAME = 'the fastest plain loop';
/** Milliseconds per tick that idle guards may add. */
export const GUARD_COST_TARGET_MS = 0.1;
/** Production-build render+compile targets (ms per render) by timeline size. */
export const RENDER_TARGETS: Readonly<Record<number, number>> = { 10: 0.5, 1000: 2, 10000: 10 };

/** Context-budget targets: per-tick pruning at 10,000 messages, 10k vs 1k tick. */
export const BUDGET_TARGETS = { prunedMs: 5, tickRatio: 1.2 } as const;

export interface BuildRun {
  render: RenderCost[];
  tick: TickOverheadResult;
  nodeEnv: string;
  react: string;
}

export interface BenchData {
  machine: MachineInfo;
  production: Omit<BuildRun, 'nodeEnv' | 'react'> & {
    long?: LongHistoryResult;
    /** Agate and the fastest plain loop, 200 ticks, the fastest of `inner` runs per repetition. */
    target?: TickOverheadResult;
    /** The same for short runs made from scratch: the narrow workload, then the wide one. */
    short?: TickOverheadResult[];
    /** The default loop and the guarded one, alternating (the idle-guards target). */
    guards?: TickOverheadResult;
    /** Untraced, no provider, SDK tracer, alternating (telemetry's cost). */
    telemetry?: TickOverheadResult;
    /** A short run minus its AI SDK calls made alone, and where the rest goes (issue 51 item 2). */
    ownTick?: OwnTickResult;
  };
  development?: BuildRun;
  memory: Array<MemoryResult & { nodeEnv?: string; react?: string }>;
  memoryTicks: number;
  contextBudget?: ContextBudgetResult;
  subAgent?: SubAgentCostResult;
  /** A thousand sessions at once against one at a time. */
  scale?: ScaleResult;
  idleSessions?: IdleSessionMemory;
  /** `<PhaseGates>` on scripted weak-model policies (issue 9): not a timing. */
  phaseGates?: EffectivenessRow[];
  /** `<Shell>`: a sandboxed `true` against an unsandboxed one (absent without bubblewrap). */
  sandbox?: SandboxSpawnResult;
  /** `@agate/postgres`: saving tick 2,000 against tick 10 (absent without PostgreSQL). */
  postgresSave?: PostgresSaveResult;
  /** `<McpServer>` (stdio, echo) against a plain generateText loop over the MCP client's tools. */
  mcpCall?: McpCallResult;
  /** `@agate/dbos`: a tick through a worker against in process (absent without PostgreSQL). */
  dbosTick?: DbosTickResult;
  /** `@agate/dbos`: 1, 2 and 4 worker processes on one PostgreSQL, and a kill (issue 38). */
  durableScale?: DurableScaleResult;
  /** `agate run` on the demo: process start to the first tick. */
  coldStart?: ColdStartResult;
  warmup: number;
  quick: boolean;
  elapsedMs: number;
}

const COMPARISON: readonly LoopName[] = [
  'agate',
  FASTEST_PLAIN,
  'generateText',
  'generateTextPreconverted',
  'streamText',
  'streamTextPreconverted',
  'toolLoopAgent',
  'toolLoopAgentPreconverted',
];

const TICK_HEADER =
  '| loop | median CPU per tick | min | max | wall clock (median) | vs the fastest plain loop |';
const TICK_ALIGN = '| --- | ---: | ---: | ---: | ---: | ---: |';

interface TargetRow {
  what: string;
  target: string;
  measured: string;
  /** The per-repetition spread the verdict is judged on (min–max). */
  spread: string;
  verdict: Verdict;
}

const x = (v: number) => `${v.toFixed(2)}×`;
const signed = (v: number) => `${v >= 0 ? '+' : '−'}${ms(Math.abs(v))}`;
const range = (s: Summary, f: (v: number) => string) => `${f(s.min)} – ${f(s.max)}`;

/** Each target, judged on the spread of its per-repetition values (see verdict.ts). */
export function targetRows(data: BenchData): TargetRow[] {
  const { target, long } = data.production;
  const rows: TargetRow[] = [];
  for (const short of data.production.short ?? []) rows.push(plainRatioRow(short, 'short'));
  if (target) rows.push(plainRatioRow(target, 'long'));
  rows.push(ownTickRow(data.production.ownTick));
  const longRatio = long?.ratios;
  rows.push({
    what: long
      ? `The tail of a long run: per tick over the last ${long.window} of ${long.ticks.toLocaleString('en-US')} ticks (${TOOL_COUNT} tools) / ${FASTEST_PLAIN_NAME}'s (${roundRobin(long.reps, long.inner ?? 1, 'window')})`
      : 'The tail of a long run',
    target: `≤ ${LONG_RATIO_TARGET}×`,
    measured: longRatio
      ? `${x(longRatio.median)} (${ms(long!.perTick.agate!.median)} vs ${ms(long!.perTick[FASTEST_PLAIN]!.median)}${long?.pairedRatios ? `; median of paired rounds ${x(long.pairedRatios.median)}` : ''})`
      : '—',
    spread: longRatio ? range(longRatio, x) : '—',
    verdict: judge(longRatio, LONG_RATIO_TARGET),
  });
  const guards = data.production.guards ? guardCost(data.production.guards) : undefined;
  const guardsPaired = data.production.guards ? guardCostPaired(data.production.guards) : undefined;
  rows.push({
    what: `Idle guards: extra CPU per tick with the bench agent's guards mounted (${roundRobin(data.production.guards?.reps ?? 0, data.production.guards?.inner ?? 1, 'run')})`,
    target: `≤ ${GUARD_COST_TARGET_MS} ms`,
    measured: guards
      ? `${signed(guards.median)}${guardsPaired ? ` (median of paired rounds ${signed(guardsPaired.median)})` : ''}`
      : '—',
    spread: guards ? range(guards, signed) : '—',
    verdict: judge(guards, GUARD_COST_TARGET_MS),
  });
  const scale = data.scale;
  const perSecond = (v: number) => Math.round(v).toLocaleString('en-US');
  rows.push({
    what: scale
      ? `${scale.sessions.toLocaleString('en-US')} sessions at once (${scale.ticks} ticks each, a tool call per tick, ${scale.latencyMs} ms model latency): CPU per tick / one session alone (${scale.reps} repetitions)`
      : 'Many sessions at once',
    target: `≤ ${SCALE_CPU_TARGET}×`,
    measured: scale
      ? `${x(scale.ratio.median)} (${ms(scale.concurrent.median)} vs ${ms(scale.single.median)}; ${perSecond(scale.throughput.median)} ticks/s)`
      : '—',
    spread: scale ? range(scale.ratio, x) : '—',
    verdict: judge(scale?.ratio, SCALE_CPU_TARGET),
  });
  rows.push({
    what: scale
      ? `${scale.sessions.toLocaleString('en-US')} runs at once (${scale.ticks}-tick runs, ${TOOL_COUNT} tools, ${scale.latencyMs} ms model latency): Agate's steps per second (wall) / ${FASTEST_PLAIN_NAME}'s, the two batches back to back, alternating which goes first (${scale.reps} repetitions)`
      : 'Steps per second with many runs at once',
    target: `≥ ${SCALE_THROUGHPUT_FLOOR}×`,
    measured:
      scale?.throughputRatio && scale.plainThroughput
        ? `${x(scale.throughputRatio.median)} (${perSecond(scale.throughput.median)} vs ${perSecond(scale.plainThroughput.median)} steps/s)`
        : '—',
    spread: scale?.throughputRatio ? range(scale.throughputRatio, x) : '—',
    verdict: judgeAtLeast(scale?.throughputRatio, SCALE_THROUGHPUT_FLOOR),
  });
  const idle = data.idleSessions;
  const kib = (b: number) => `${(b / 1024).toFixed(0)} KiB`;
  rows.push({
    what: idle
      ? `Heap per idle session beside its ${idle.messages} timeline messages (${TOOL_COUNT} tools; ${idle.sessions} sessions, after GC, minus as many copies of one timeline)`
      : 'Heap per idle session',
    target: `≤ ${kib(IDLE_SESSION_TARGET_BYTES)}`,
    measured: idle
      ? `${kib(idle.bytesPerSessionBesideMessages)} (${kib(idle.bytesPerSession)} in all${idle.plainBytesPerConversation !== undefined ? `; ${FASTEST_PLAIN_NAME} keeps its conversation: ${kib(idle.plainBytesPerConversation)} in all` : ''})`
      : '—',
    spread: '(one measurement of many sessions)',
    verdict:
      idle === undefined
        ? 'not measured'
        : idle.bytesPerSessionBesideMessages <= IDLE_SESSION_TARGET_BYTES
          ? 'met'
          : 'missed',
  });
  for (const r of data.production.render) {
    const goal = RENDER_TARGETS[r.messages];
    if (goal === undefined) continue;
    rows.push({
      what: `Render + compile in a tick, ${r.messages.toLocaleString('en-US')} timeline messages (${r.inTick.samples} ticks; spread = min – p95)`,
      target: `≤ ${goal} ms`,
      measured: ms(r.inTick.median),
      spread: `${ms(r.inTick.min)} – ${ms(r.inTick.p95)}`,
      verdict: judge({ ...r.inTick, max: r.inTick.p95 }, goal),
    });
  }
  const budget = data.contextBudget;
  const big = budget?.inTick.find((r) => r.messages === 10_000);
  if (big) {
    rows.push({
      what: `Context budget: render + prune in a tick at 10,000 messages (${big.render.samples} repetitions, each the fastest of ${budget?.inner ?? 1} blocks of ticks, block medians)`,
      target: `≤ ${BUDGET_TARGETS.prunedMs} ms`,
      measured: ms(big.render.median),
      spread: range(big.render, ms),
      verdict: judge(big.render, BUDGET_TARGETS.prunedMs),
    });
  }
  if (budget?.tickRatio) {
    rows.push({
      what: `Context budget: a whole tick at ${budget.largest.toLocaleString('en-US')} messages / at ${budget.reference.toLocaleString('en-US')} (${roundRobin(budget.tickRatio.samples, budget.inner ?? 1, 'block of ticks (its median tick, CPU time)')})`,
      target: `≤ ${BUDGET_TARGETS.tickRatio}×`,
      measured: `${x(budget.tickRatio.median)}${budget.tickRatioPaired ? ` (median of paired rounds ${x(budget.tickRatioPaired.median)})` : ''}`,
      spread: range(budget.tickRatio, x),
      verdict: judge(budget.tickRatio, BUDGET_TARGETS.tickRatio),
    });
  }
  const sub = data.subAgent;
  rows.push({
    what: `\`<SubAgent>\`: a run whose one call goes to a sub-agent answering in one tick, minus the same run with a plain tool (CPU time; ${sub?.reps ?? 0} repetitions of ${sub?.runsPerRep ?? 0} alternating runs, in rounds of 10 run round-robin over the repetitions; per-repetition medians)`,
    target: `≤ ${SUB_AGENT_EXTRA_TARGET_MS} ms`,
    measured: sub
      ? `+${ms(sub.extra.median)} (${ms(sub.subAgent.median)} vs ${ms(sub.plain.median)})`
      : '—',
    spread: sub ? range(sub.extra, signed) : '—',
    verdict: sub ? judge(sub.extra, SUB_AGENT_EXTRA_TARGET_MS) : 'not measured',
  });
  const sandbox = data.sandbox;
  rows.push({
    what: `\`<Shell>\`: a sandboxed \`true\` minus an unsandboxed spawn (${sandbox?.reps ?? 0} alternating pairs, wall time; spread of the medians of blocks of 8 pairs)`,
    target: `≤ ${SANDBOX_EXTRA_TARGET_MS} ms`,
    measured: sandbox
      ? `+${ms(sandbox.extra.median)} (${ms(sandbox.sandboxed.median)} vs ${ms(sandbox.host.median)})`
      : '— (bubblewrap cannot start here)',
    spread: sandbox ? range(sandbox.blocks, signed) : '—',
    verdict: sandbox ? judge(sandbox.blocks, SANDBOX_EXTRA_TARGET_MS) : 'not measured',
  });
  const pgSave = data.postgresSave;
  rows.push({
    what: `\`@agate/postgres\`: \`store.save\` of tick 2,000 (${pgSave?.messages.toLocaleString('en-US') ?? '—'} timeline messages) / of tick 10 of a real session, fsync on (${pgSave?.reps ?? 0} alternating pairs, wall time; spread of the medians of blocks of 8 pairs)`,
    target: `≤ ${POSTGRES_SAVE_RATIO_TARGET}×`,
    measured: pgSave
      ? `${x(pgSave.ratio.median)} (${ms(pgSave.tick2000.median)} vs ${ms(pgSave.tick10.median)})`
      : '— (PostgreSQL is not installed here)',
    spread: pgSave ? range(pgSave.blocks, x) : '—',
    verdict: pgSave ? judge(pgSave.blocks, POSTGRES_SAVE_RATIO_TARGET) : 'not measured',
  });
  const mcp = data.mcpCall;
  rows.push({
    what: `The MCP layer: a tick whose tool call goes through \`<McpServer>\` (stdio, server-everything's \`echo\`) / the same tick with the AI SDK MCP client's tools mounted in \`<Tools>\` (${roundRobin(mcp?.reps ?? 0, MCP_INNER, `run of ${mcp?.calls ?? 0} calls`)}, the three sides below in rotating order; CPU time of this process per tick; each run starts its own server and settles before the clock (a GC, then ${MCP_SETTLE} untimed calls), since a spawn raises the parent's CPU in the ticks after it). Beside it, the whole tick against a plain \`generateText\` loop over the client's tools (telemetry off), held to the tick targets above, not to this one`,
    target: `≤ ${MCP_CALL_TARGET}×`,
    measured: mcp
      ? `${mcp.layer && mcp.agateTools ? `${x(mcp.layer.median)} (${ms(mcp.agate.median)} vs ${ms(mcp.agateTools.median)} CPU${mcp.layerPaired ? `; median of paired rounds ${x(mcp.layerPaired.median)}` : ''}). ` : ''}The whole tick / the plain loop: ${x(mcp.ratio.median)} (${ms(mcp.agate.median)} vs ${ms(mcp.plain.median)} CPU; wall ${ms(mcp.agateWall.median)} vs ${ms(mcp.plainWall.median)}${mcp.pairedRatio ? `; median of paired rounds ${x(mcp.pairedRatio.median)}` : ''}). ${mcpCallItself(mcp)}`
      : '—',
    spread: mcp?.layer ? range(mcp.layer, x) : '—',
    verdict: judge(mcp?.layer, MCP_CALL_TARGET),
  });
  const dbosTick = data.dbosTick;
  rows.push({
    what: `\`@agate/dbos\`: a tick (a model call and a tool call, ${dbosTick?.ticks ?? '—'}-tick runs) through a worker minus the same tick in process on a memory store, fsync on (${roundRobin(dbosTick?.reps ?? 0, dbosTick?.rounds ?? 0, 'run')}, a run's figure its median tick, wall time from one tick's end to the next's)`,
    target: `≤ +${DBOS_TICK_EXTRA_TARGET_MS} ms`,
    measured: dbosTick
      ? `+${ms(dbosTick.extra.median)} (${ms(dbosTick.dbos.median)} vs ${ms(dbosTick.memory.median)})`
      : '— (PostgreSQL is not installed here)',
    spread: dbosTick ? range(dbosTick.extra, signed) : '—',
    verdict: dbosTick ? judge(dbosTick.extra, DBOS_TICK_EXTRA_TARGET_MS) : 'not measured',
  });
  rows.push(...durableScaleRows(data.durableScale));
  const cold = data.coldStart;
  rows.push({
    what: `\`agate run src/demo.tsx --plain\`, piped, with the installed bin: the packages packed and installed with pnpm in a temporary project holding the demo (built \`dist/\` JavaScript; the demo's TypeScript through the CLI's tsx), from spawning \`node_modules/.bin/agate\` to the first tick's line (${cold?.reps ?? 0} runs, after one complete run: the OS file cache and tsx's and Node's compile caches warm, as for a user's second run)`,
    target: `< ${COLD_START_TARGET_MS} ms`,
    measured: cold
      ? `${ms(cold.firstTick.median)} (Node alone ${ms(cold.node.median)}; the repository's bin, TypeScript sources through tsx: ${ms(cold.repository.median)}, ${range(cold.repository, ms)})`
      : '—',
    spread: cold ? range(cold.firstTick, ms) : '—',
    verdict: cold ? judge(cold.firstTick, COLD_START_TARGET_MS - 1e-9) : 'not measured',
  });
  rows.push({
    what: `\`node --input-type=module -e "await import('@agate/core')"\` / the same for \`ai\`, in the installed project above (packed \`dist/\` JavaScript; core's bundled per entry as \`pnpm build\` makes it; NODE_ENV=production on both sides), process start to exit (${cold?.importRatio?.samples ?? 0} blocks of ${IMPORT_BLOCK} runs of each, in rotating order with Node alone; a block's figure is the median of its runs' ratios)`,
    target: `≤ ${IMPORT_RATIO_TARGET}×`,
    measured:
      cold?.importRatio && cold.importCore && cold.importAi && cold.importNode
        ? `${x(cold.importRatio.median)} (${ms(cold.importCore.median)} vs ${ms(cold.importAi.median)}; Node alone, importing \`node:path\`: ${ms(cold.importNode.median)})`
        : '—',
    spread: cold?.importRatio ? range(cold.importRatio, x) : '—',
    verdict: judge(cold?.importRatio, IMPORT_RATIO_TARGET),
  });
  return rows;
}

/**
 * Agate's default \`run()\` / the fastest plain loop, per tick, on one child's measurement: a
 * short run made from scratch (the session's creation and disposal in every run) or 200 ticks.
 */
function plainRatioRow(tick: TickOverheadResult, kind: 'short' | 'long'): TargetRow {
  const ratio = ratioToPlain(tick.samples);
  const paired = tickRatioPaired(tick);
  const tools = tick.tools ?? TOOL_COUNT;
  const goal = kind === 'short' ? SHORT_RATIO_TARGET : TICK_RATIO_TARGET;
  const shape =
    kind === 'short'
      ? `A ${tick.ticks}-tick run made from scratch with ${tools} tools (\`run()\`: the session's set-up and disposal included)`
      : `${tick.ticks} ticks with ${tools} tools`;
  const agate = tick.perTick.agate;
  const plain = tick.perTick[FASTEST_PLAIN];
  return {
    what: `${shape}: Agate's default \`run()\` per tick / ${FASTEST_PLAIN_NAME}'s (${roundRobin(tick.reps, tick.inner, 'run')})`,
    target: `≤ ${goal}×`,
    measured:
      ratio && agate && plain
        ? `${x(ratio.median)} (${ms(agate.median)} vs ${ms(plain.median)} per tick${kind === 'short' ? `, ${ms(agate.median * tick.ticks)} vs ${ms(plain.median * tick.ticks)} a run` : ''}${paired ? `; median of paired rounds ${x(paired.median)}` : ''})`
        : '—',
    spread: ratio ? range(ratio, x) : '—',
    verdict: judge(ratio, goal),
  };
}

/**
 * The call alone, beside the row's whole-tick verdict (which it does not change): from the call's
 * start to its result as each loop reports them. Agate's window holds more of the call's work
 * (guards, input validation, time limit, output conversion and cap) than the AI SDK's, whose
 * input was validated, and output is converted, outside it.
 */
function mcpCallItself(mcp: McpCallResult): string {
  if (mcp.callRatio === undefined) return '';
  return `The call itself, from its start to its result (Agate \`tool:call\` to \`tool:result\`, the AI SDK \`onToolExecutionStart\` to \`onToolExecutionEnd\`): ${x(mcp.callRatio.median)}, ${range(mcp.callRatio, x)} (${ms(mcp.callAgate.median)} vs ${ms(mcp.callPlain.median)} CPU; wall ${ms(mcp.callAgateWall.median)} vs ${ms(mcp.callPlainWall.median)})`;
}

/**
 * How a target row's repetitions are made and judged. Each side's fastest run in a repetition:
 * noise on a shared machine (other processes, a neighbour's burst, a GC pause landing in one
 * run) only adds time, so the fastest of several runs is the steadiest figure of what the code
 * costs (as Python's `timeit` advises); the rounds go round-robin over the repetitions, so every
 * repetition's runs are spread over the whole measurement and each side's fastest comes from
 * the same quiet moments. The median of the rounds' paired ratios (the sides of one round ran
 * back to back) is shown beside it: what a typical run costs, GC pauses included.
 */
function roundRobin(reps: number, rounds: number, unit: string): string {
  return `${reps} repetitions of ${rounds} rounds run round-robin, a round running each side once back to back; a repetition's figure is each side's fastest ${unit} in it`;
}

/** Guarded − unguarded Agate, per repetition (each side's fastest run). */
function guardCost(tick: TickOverheadResult): Summary | undefined {
  return tick.samples ? perRep(tick.samples, 'agateGuards', 'agate', (a, b) => a - b) : undefined;
}

/** Guarded − unguarded Agate: the median of each repetition's rounds (see `pairedPerRep`). */
function guardCostPaired(tick: TickOverheadResult): Summary | undefined {
  return tick.rounds
    ? pairedPerRep(tick.rounds, 'agateGuards', 'agate', (a, b) => a - b)
    : undefined;
}

/** Agate / the fastest plain loop: the median of each repetition's rounds. */
function tickRatioPaired(tick: TickOverheadResult): Summary | undefined {
  return tick.rounds
    ? pairedPerRep(tick.rounds, 'agate', FASTEST_PLAIN, (a, b) => a / b)
    : undefined;
}

export function renderReport(data: BenchData): string {
  const { machine } = data;
  const out: string[] = [];
  const p = (...lines: string[]) => out.push(...lines);

  p(
    '# Performance',
    '',
    'Generated by `pnpm bench` (`bench/src/main.ts`; `pnpm bench --write` rewrites this file). ' +
      'Every figure below was measured in one invocation; nothing is copied in by hand. Agate ' +
      'against other agent frameworks (LangGraph.js, LangChain, the OpenAI Agents SDK, Mastra) is ' +
      'the last section, "Agate and its peers", generated by `pnpm bench:peers` (which rewrites ' +
      'that section only; `pnpm bench --write` keeps it).',
    '',
    '## Machine',
    '',
    '| | |',
    '| --- | --- |',
    `| date | ${machine.date} |`,
    `| node | ${machine.node} |`,
    `| platform | ${machine.platform} |`,
    `| CPU | ${machine.cpuCount} × ${machine.cpuModel} |`,
    `| memory | ${mib(machine.totalMemory)} |`,
    `| NODE_ENV (main process) | ${machine.nodeEnv} (React build loaded: ${machine.reactBuild}) |`,
    `| Agate | ${machine.agateFrom === 'dist' ? 'its built `dist/` (`pnpm build` first), as users run it' : 'its TypeScript sources (not what users run)'} |`,
    `| packages | ${Object.entries(machine.versions)
      .map(([name, version]) => `${name} ${version}`)
      .join(', ')} |`,
    `| commit | ${machine.commit} |`,
    `| bench wall time | ${(data.elapsedMs / 1000).toFixed(0)} s${data.quick ? ' (`--quick`: fewer repetitions, rougher figures)' : ''} |`,
    '',
  );

  // ---- targets --------------------------------------------------------------------------
  p(
    '## Targets',
    '',
    'Every target is judged on the spread of its per-repetition values, not on one median: ' +
      '**met** when every repetition met it, **missed** when none did, **not resolved** when the ' +
      'spread crosses the target (another run, or another machine, could then give the other ' +
      'verdict). Ratios are taken within a repetition. A repetition is made of rounds, a round ' +
      'running each side once, back to back; the rounds go round-robin over the repetitions (round 1 ' +
      'of every repetition, then round 2, ...), so the runs of every repetition are spread over the ' +
      'whole measurement and a burst of noise on this shared machine touches a round of several ' +
      'repetitions instead of a whole one. Within a round the repetitions take a shuffled order, ' +
      'so a full garbage collection that recurs every so many runs cannot land in every round of ' +
      "the same repetition. A repetition's figure is each side's fastest run in it " +
      "(noise only ever adds time); the median of the rounds' paired ratios, what a typical run " +
      'costs with its GC pauses, is shown beside it. Every row that compares Agate with a plain ' +
      'loop compares it with the fastest plain loop: `generateText` with its tools made once by ' +
      "`tool()` with a `zodSchema()` input (converted to JSON Schema once) and the SDK's telemetry " +
      'off (`telemetry: { isEnabled: false }`, which skips its per-step telemetry dispatch), what a ' +
      "user who cares about speed writes. Agate's tools are made once too (schema, description and " +
      '`execute` at module level). Streaming only when someone reads the stream, with the same results, events and ' +
      'state either way, is pinned by a test (`packages/core/src/runtime/streaming-modes.test.tsx`), ' +
      'not timed here.',
    '',
    '| target | goal | measured (median) | spread | |',
    '| --- | ---: | ---: | ---: | --- |',
  );
  for (const row of targetRows(data)) {
    p(
      `| ${row.what} | ${row.target} | ${row.measured} | ${row.spread} | ${formatVerdict(row.verdict)} |`,
    );
  }
  p('');

  // ---- 1. tick overhead ----------------------------------------------------------------
  const { tick } = data.production;
  const raw = tick.perTick[FASTEST_PLAIN];
  p(
    '## 1. Tick overhead: Agate vs plain AI SDK tool loops',
    '',
    `The same scripted ${tick.ticks}-tick run with ${TOOL_COUNT} tools (${tick.ticks - 1} ticks with one ` +
      'tool call each, then a final text reply), on a mock model that answers instantly, so only ' +
      'framework overhead is timed. Agate: `run()` on a JSX agent (`<System>`, `<User>`, ' +
      `\`<Timeline />\`, ${TOOL_COUNT} \`<Tool>\`s) with default options — no \`model:delta\` ` +
      "subscriber, so `streaming: 'auto'` makes one `generateText` call per tick. The reference is " +
      `the fastest plain loop (\`generateText\` with \`stopWhen: isStepCount(${tick.ticks})\`, its tools ` +
      "made once by `tool()` with a `zodSchema()` input, the SDK's telemetry off). Below it, the " +
      'plain loops written the way the AI SDK docs show, with the tools made once by `tool()` (a ' +
      'bare zod `inputSchema`, the default telemetry settings): `generateText` and `streamText`, and ' +
      'a `ToolLoopAgent` with `generate()`. All validate arguments with the same zod schema and run ' +
      `the same \`execute\`. ${tick.reps} measured repetitions per loop after ${data.warmup} warm-up ` +
      'run(s), interleaved in rotating order in a steady heap (no forced GC between runs: see `collectGarbage` in bench/src/stats.ts for why). Per-tick time = the CPU time the ' +
      'process spent on the run (user + system, `process.cpuUsage()`) / ticks: the work is all CPU ' +
      'work of this process, and on a shared machine the wall clock also counts time other ' +
      'processes held the CPU. The wall-clock median is shown beside it.',
    '',
    TICK_HEADER,
    TICK_ALIGN,
  );
  const tickRow = (name: string) => {
    const s = tick.perTick[name];
    if (!s) return;
    const vs = raw ? `${(s.median / raw.median).toFixed(2)}×` : '';
    const w = tick.wallPerTick?.[name];
    p(
      `| ${LOOPS[name as LoopName].label} | ${ms(s.median)} | ${ms(s.min)} | ${ms(s.max)} | ${w ? ms(w.median) : '—'} | ${vs} |`,
    );
  };
  for (const name of COMPARISON) tickRow(name);
  p('');
  if (tick.ratios) {
    p(
      `Per-repetition Agate / the fastest plain loop: median ${tick.ratios.median.toFixed(2)}×, ` +
        `range ${tick.ratios.min.toFixed(2)}–${tick.ratios.max.toFixed(2)}×.`,
      '',
    );
  }

  const variants = Object.keys(tick.perTick).filter(
    (n) => !COMPARISON.includes(n as LoopName) && !TELEMETRY_LOOPS.includes(n as LoopName),
  );
  if (variants.length > 0) {
    p(
      '### Variants and where the time goes',
      '',
      '- **`streaming: true`** streams every call through `streamText` (what the default does ' +
        "while a `model:delta` subscriber exists); Web Streams cost more than the tick's other work.",
      '- **schemas pre-converted**: each tool given as a ready AI SDK `tool()` whose schema went ' +
        'through `zodSchema()` once up front (the AI SDK caches the JSON Schema on that object). With a ' +
        'bare zod schema the AI SDK converts it to JSON Schema again on every step — most of a plain ' +
        "loop's step here. Agate caches the conversion per schema object, so it pays it once per run.",
      '',
      TICK_HEADER,
      TICK_ALIGN,
    );
    for (const name of variants) tickRow(name);
    p('');
  }
  p(
    '### What a tick does beyond a plain step',
    '',
    '- **One AI SDK call per tick.** A plain loop is one `generateText` call for the whole run; ' +
      'Agate makes one per tick (its tools carry no `execute`, so the call returns after one step and ' +
      'the runtime runs the calls itself, through the guards). The per-call setup (tool preparation, ' +
      'the user-agent header, start events) is paid per tick. What a call would do with its whole ' +
      'history before its first step (scan it for tool approvals to resume, copy it) is not: the ' +
      'call starts from the first message and its step gets the history through `prepareStep`, so ' +
      'the request the model receives is the same.',
    '- **Only what changed is redone.** Families that are not rendered (no gate, no checkpoint, no ' +
      'phase gates, no `<Output>`, no approvals) are not asked around calls; each `<Tool>` is compiled ' +
      "once per element and the AI SDK tool set is reused while the tools are the same; a tick's " +
      'messages are turned into request forms only from the first message that changed.',
    "- **Telemetry.** Written as the AI SDK docs show, the plain loops run with the SDK's " +
      'default telemetry settings, so each step passes its event (history included) through the ' +
      "SDK's redaction even with no integration registered; Agate turns the SDK's telemetry off when " +
      'no integration or tracing-channel subscriber is present (its own spans cover the run), and ' +
      'the fastest plain loop turns it off too, so the targets compare like with like. Both ' +
      'sides validate arguments with the same zod schemas and run the same `execute`.',
    '',
    ...ownTickSection(data.production.ownTick),
  );

  // ---- 1a. idle guards -------------------------------------------------------------------
  const pair = data.production.guards;
  const cost = pair ? guardCost(pair) : undefined;
  if (pair && cost) {
    const praw = pair.perTick.agate;
    p(
      '### Idle guards',
      '',
      "The default Agate loop with and without the benchmark's `<IdleGuards />` " +
        '(`bench/src/workload.tsx`), one line per guard family: a `<Gate>` that never activates, a ' +
        '`<ContinueGate>` whose limits are never reached, a `<Checkpoint>` approved before the run, ' +
        'a `<Todos>` list and `<PhaseGates mode="warn">`. Mounted, they render, add `set_knob`, ' +
        '`todo_write` and `complete_step` to the request, are asked before every model call, around ' +
        'every tool call and at every tick end (the phase gates record every call and report their ' +
        'status each tick), and let everything through. The two loops run back to back in ' +
        `${pair.reps} repetitions of ${pair.inner} rounds (${pair.ticks} ticks each, after warm-up runs of both) in a ` +
        'child process of their own, so the state the other loops leave behind weighs on neither; ' +
        "a repetition's cost is the median of its rounds' differences, and the cost the median of the repetitions'.",
      '',
      '| loop | median CPU per tick | min | max | wall clock (median) | vs default |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const name of Object.keys(pair.perTick)) {
      const s = pair.perTick[name]!;
      const w = pair.wallPerTick?.[name];
      p(
        `| ${LOOPS[name as LoopName].label} | ${ms(s.median)} | ${ms(s.min)} | ${ms(s.max)} | ${w ? ms(w.median) : '—'} | ${praw ? `${(s.median / praw.median).toFixed(2)}×` : ''} |`,
      );
    }
    const sign = (v: number) => `${v >= 0 ? '+' : '−'}${ms(Math.abs(v))}`;
    p(
      '',
      `Guarded − unguarded, per repetition: median ${sign(cost.median)}, range ${sign(cost.min)} ` +
        `to ${sign(cost.max)} per tick.`,
      '',
    );
  }

  // ---- 1b. long history ------------------------------------------------------------------
  const long = data.production.long;
  if (long) {
    const lraw = long.perTick[FASTEST_PLAIN];
    const ratios = long.ratios;
    p(
      '## 1b. Long history',
      '',
      `The same workload run for ${long.ticks.toLocaleString('en-US')} ticks (the history grows to about ` +
        `${(long.ticks * 2).toLocaleString('en-US')} messages), timing only the last ${long.window} ticks ` +
        "from per-tick CPU-time stamps (Agate's `tick:end` event, the AI SDK's `onStepEnd`), so both sides " +
        'are compared at the same history length. Every request carries the whole history, so some ' +
        'work per tick must grow with it (the AI SDK converts every message on every step, in both ' +
        `loops). ${long.reps} measured repetitions after 1 warm-up, interleaved, in a child process of ` +
        'their own (the heap the other loops leave behind would weigh on whichever runs after them); ' +
        `each repetition has ${long.inner ?? 1} rounds (run round-robin over the repetitions), a round ` +
        "running each loop once back to back, and keeps each loop's fastest window: a full garbage " +
        "collection that happens to land in one run's last ticks (it costs several milliseconds) says " +
        "nothing about the loop. The AI SDK's `generateText` as its docs write it (schemas converted " +
        'on every step, telemetry on) runs in the first round only: the target is judged against ' +
        'the fastest plain loop, and its rounds are the ones that need numbers.',
      '',
      `| loop | median CPU per tick, last ${long.window} | min | max | whole run, per tick | vs the fastest plain loop |`,
      '| --- | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const name of Object.keys(long.perTick)) {
      const s = long.perTick[name]!;
      const whole = long.wholeRun[name];
      p(
        `| ${LOOPS[name as LoopName].label} | ${ms(s.median)} | ${ms(s.min)} | ${ms(s.max)} | ${whole ? ms(whole.median) : '—'} | ${lraw ? `${(s.median / lraw.median).toFixed(2)}×` : ''} |`,
      );
    }
    p('');
    if (ratios) {
      p(
        `Per-repetition Agate / the fastest plain loop: median ${ratios.median.toFixed(2)}×, range ` +
          `${ratios.min.toFixed(2)}–${ratios.max.toFixed(2)}×.`,
        '',
      );
    }
  }

  telemetrySection(data.production.telemetry ?? tick, p);

  // ---- 2. render -------------------------------------------------------------------------
  p(
    '## 2. Render + compile per tick',
    '',
    '`session.render()` — React render and commit of the agent tree, then compile to the ' +
      `\`CompiledContext\` — with the ${TOOL_COUNT}-tool agent above on a session seeded with ` +
      '`state: { timeline }` (`maxTimelineMessages` raised to fit 10,000); timelines alternate ' +
      'assistant tool calls and tool results. Two measurements per size, each render timed on its ' +
      'own after a warm-up:',
    '',
    '- **same state**: `session.render()` called again and again on unchanged state;',
    '- **in a tick**: real ticks of `session.run()`, timed from the `tick:start` event to the ' +
      '`model:request` event, between which the runtime only renders and compiles (no ' +
      '`<ContinueGate>` here). Every tick appends an assistant/tool pair and `maxTimelineMessages` ' +
      'drops the oldest, so the timeline is a new array of the same size each tick. The targets are ' +
      'judged on this one.',
    '',
  );
  const dev = data.development;
  p(
    `| timeline messages | same state | in a tick (median) | in a tick (p95) | target |${dev ? ' dev: same state | dev: in a tick | dev: in a tick p95 |' : ''}`,
    `| ---: | ---: | ---: | ---: | ---: |${dev ? ' ---: | ---: | ---: |' : ''}`,
  );
  for (const r of data.production.render) {
    const target = RENDER_TARGETS[r.messages];
    const verdict = target === undefined ? '—' : `≤ ${target} ms`;
    const d = dev?.render.find((x) => x.messages === r.messages);
    const devCells = dev
      ? ` ${d ? ms(d.renders.median) : '—'} | ${d ? ms(d.inTick.median) : '—'} | ${d ? ms(d.inTick.p95) : '—'} |`
      : '';
    p(
      `| ${r.messages.toLocaleString('en-US')} | ${ms(r.renders.median)} | ${ms(r.inTick.median)} | ${ms(r.inTick.p95)} | ${verdict} |${devCells}`,
    );
  }
  const counts = data.production.render
    .map((r) => `${r.messages.toLocaleString('en-US')}: ${r.renders.samples} / ${r.inTick.samples}`)
    .join(', ');
  p('', `Renders measured (same state / in a tick): ${counts}.`, '');

  // ---- development tick ------------------------------------------------------------------
  if (dev) {
    p(
      '## Development build',
      '',
      `The render table's development columns and the figures below come from a child process ` +
        `started with NODE_ENV=${dev.nodeEnv} (React build loaded: ${dev.react}); React picks its ` +
        'build when first imported, so it cannot be switched inside one process. Agate also runs its ' +
        'extra development checks there.',
      '',
      '| loop | median CPU per tick | min | max | vs the fastest plain loop |',
      '| --- | ---: | ---: | ---: | ---: |',
    );
    const devRaw = dev.tick.perTick[FASTEST_PLAIN];
    for (const name of Object.keys(dev.tick.perTick)) {
      const s = dev.tick.perTick[name]!;
      p(
        `| ${LOOPS[name as LoopName].label} | ${ms(s.median)} | ${ms(s.min)} | ${ms(s.max)} | ${devRaw ? `${(s.median / devRaw.median).toFixed(2)}×` : ''} |`,
      );
    }
    p('', `(${dev.tick.ticks} ticks, ${dev.tick.reps} repetitions.)`, '');
  }

  // ---- 3. memory -------------------------------------------------------------------------
  if (data.memory.length > 0) {
    p(
      `## 3. Memory over ${data.memoryTicks.toLocaleString('en-US')} ticks`,
      '',
      `Each loop runs ${data.memoryTicks.toLocaleString('en-US')} ticks of the same workload in its own child process ` +
        '(NODE_ENV=production, `--expose-gc`), after a 20-tick warm-up. RSS is sampled after every tick; ' +
        "heap figures are after a forced GC, first while the run's result object is still referenced " +
        '(`RunResult`, `GenerateTextResult`, or the `streamText` steps), then after dropping it.',
      '',
      '| loop | peak RSS | RSS growth over baseline | baseline heap | heap after GC, result held | heap after GC, result dropped | run time |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    const delta = (bytes: number) => `${bytes >= 0 ? '+' : '−'}${mib(Math.abs(bytes))}`;
    for (const m of data.memory) {
      p(
        `| ${LOOPS[m.loop].label} | ${mib(m.peakRss)} | ${mib(m.peakRss - m.baselineRss)} | ${mib(m.baselineHeapUsed)} | ${mib(m.heapUsedHoldingResult)} (${delta(m.heapUsedHoldingResult - m.baselineHeapUsed)}) | ${mib(m.heapUsedAfterRelease)} (${delta(m.heapUsedAfterRelease - m.baselineHeapUsed)}) | ${(m.elapsedMs / 1000).toFixed(1)} s |`,
      );
    }
    const missingGc = data.memory.some((m) => !m.gcExposed);
    p(
      '',
      missingGc
        ? '**Warning:** some children ran without `--expose-gc`; their heap figures include garbage.'
        : 'Peak RSS is mostly garbage from per-call work (each model call converts the whole ' +
            'prompt), collected lazily; the heap after GC is what stays live. Agate keeps the ' +
            'timeline in its session state (capped by `maxTimelineMessages`, default 5,000) and ' +
            'hands it out in the `RunResult`.',
      '',
      ...peakRssTargets(data.memory),
    );
  }

  if (data.contextBudget !== undefined) {
    p(...contextBudgetSection(data.contextBudget));
  }
  if (data.scale !== undefined) {
    p(...scaleSection(data.scale, data.idleSessions));
  }
  // Its own group: durable runs across worker processes (skipped with one line without PostgreSQL).
  p(...renderDurableScale(data.durableScale));

  if (data.phaseGates !== undefined && data.phaseGates.length > 0) {
    p(...phaseGatesSection(data.phaseGates));
  }

  // ---- noise -------------------------------------------------------------------------------
  p(
    '## How much to trust these numbers',
    '',
    `- This is a ${machine.cpuCount}-CPU machine that may be shared; a figure moves 10–30% from one ` +
      'invocation to the next. Compare loops within one report (they ran interleaved, under the same ' +
      'conditions), not across reports. The min/max columns show the spread within this run.',
    '- The mock model answers instantly, so these are pure framework costs. A real model call takes ' +
      'hundreds of milliseconds to seconds: a difference of a few milliseconds per tick is well under ' +
      '1% of a real run.',
    '- Medians resist outliers (GC pauses, other processes); p95 in the render table shows the tail.',
    '- Memory figures include V8 heap sizing decisions, which are not deterministic; treat differences ' +
      'under ~10 MiB as noise.',
    '',
  );
  return out.join('\n');
}

/** Issue 27's target (peak RSS below the plain loop's), judged for both model-call paths. */
function peakRssTargets(memory: BenchData['memory']): string[] {
  const peak = (loop: LoopName) => memory.find((m) => m.loop === loop)?.peakRss;
  const raw = peak(FASTEST_PLAIN);
  if (raw === undefined) return [];
  const lines: string[] = [];
  for (const [loop, what] of [
    ['agate', 'Agate, default (no delta subscriber: one `generateText` call per tick)'],
    ['agateStreaming', 'Agate with `streaming: true`'],
  ] as const) {
    const value = peak(loop);
    if (value === undefined) continue;
    const met = value < raw;
    lines.push(
      `- ${what}: peak RSS ${mib(value)} against ${mib(raw)} for the fastest plain loop — target (below the plain loop's) **${met ? 'met' : 'missed'}**.`,
    );
  }
  const stream = peak('streamText');
  const agate = peak('agateStreaming');
  if (stream !== undefined && agate !== undefined) {
    lines.push(
      `- The streaming path's peak is the AI SDK's: the plain \`streamText\` loop peaks at ${mib(stream)} (Agate streaming: ${mib(agate)}). Web Streams garbage per call, not retained state: compare the heap after GC.`,
    );
  }
  return lines.length > 0 ? [...lines, ''] : [];
}

function contextBudgetSection(budget: ContextBudgetResult): string[] {
  const n = (value: number) => value.toLocaleString('en-US');
  const out = [
    `## 4. Context budget: pruning to ${n(BUDGET_TOKENS)} tokens, like for like`,
    '',
    'A system message plus n messages alternating user/assistant (about 33 tokens each), pruned to ' +
      `the same ${n(BUDGET_TOKENS)}-token budget with the same tokenizer on both sides (plus 4 tokens ` +
      'per message), in the same process, samples interleaved in pairs. `@vscode/prompt-tsx` ' +
      '0.4.0-alpha.9: `renderPrompt` of a `PromptElement` rendering a `<SystemMessage>` and one ' +
      '`<UserMessage>` / `<AssistantMessage priority={i}>` per message (newer kept longer), as its ' +
      'README and `examples/history.tsx` show. Agate: `<System>` + `<Timeline />` with ' +
      `\`context: { maxTokens: ${BUDGET_TOKENS}, lowWater: ${BUDGET_TOKENS}, tokenizer }\` (so it fills ` +
      'the budget as prompt-tsx does; the default low-water mark keeps 75%).',
    '',
    '### Full renders (both count every message)',
    '',
    "Agate's full render is `session.render()` of a new session holding the n messages. Two " +
      "tokenizers: the chars/4 estimate (Agate's default) and gpt-tokenizer's `countTokens` (o200k).",
    '',
    '| messages | tokenizer | prompt-tsx `renderPrompt` | Agate full render | prompt-tsx / Agate (median of pairs) | pair range | messages sent (prompt-tsx / Agate) |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of budget.full) {
    out.push(
      `| ${n(r.messages)} | ${r.tokenizer} | ${ms(r.promptTsx.median)} | ${ms(r.agate.median)} | ${r.ratio.median.toFixed(1)}× | ${r.ratio.min.toFixed(1)}–${r.ratio.max.toFixed(1)}× | ${n(r.promptTsxKept)} / ${n(r.agateKept)} |`,
    );
  }
  out.push(
    '',
    `Samples per row: ${budget.full.map((r) => `${n(r.messages)} ${r.tokenizer}: ${r.ratio.samples}`).join(', ')}.`,
    '',
    '### Incremental path (Agate only)',
    '',
    'prompt-tsx has no incremental path: every `renderPrompt` renders and counts the whole prompt, so ' +
      "there is nothing like for like to set against Agate's per-tick path, and no ratio is given. " +
      'Agate in real ticks, on a session holding n messages (it trims its oldest as each tick adds an ' +
      `assistant turn and a tool result) with ${TOOL_COUNT} tools and the default low-water mark: the cut is ` +
      'kept between ticks and only new messages are counted. The sizes take turns, one block of ' +
      `ticks each at a time, ${budget.inner ?? 1} block${(budget.inner ?? 1) === 1 ? '' : 's'} of each size per repetition; ` +
      "figures are block medians of this process's CPU time per tick (from `tick:start` to the " +
      "event that ends the part timed), a repetition's the fastest of its blocks.",
    '',
    '| messages | render + compile + prune in a tick | range of block medians | whole tick (mock model) | range |',
    '| ---: | ---: | ---: | ---: | ---: |',
  );
  for (const r of budget.inTick) {
    out.push(
      `| ${n(r.messages)} | ${ms(r.render.median)} | ${ms(r.render.min)} – ${ms(r.render.max)} | ${ms(r.tick.median)} | ${ms(r.tick.min)} – ${ms(r.tick.max)} |`,
    );
  }
  out.push(
    '',
    'The targets (pruning at 10,000 messages; a tick at 10,000 against one at 1,000) are in the Targets table. An earlier version of this report set prompt-tsx\'s full render against Agate\'s incremental path ("16,301× faster"); that compared different work and is withdrawn.',
    '',
  );
  return out;
}

function scaleSection(scale: ScaleResult, idle: IdleSessionMemory | undefined): string[] {
  const n = (value: number) => Math.round(value).toLocaleString('en-US');
  const out = [
    '## 5. Many sessions in one process',
    '',
    `${n(scale.sessions)} sessions started together in one process, each \`run()\` of the bench agent ` +
      `(${TOOL_COUNT} tools) for ${scale.ticks} ticks with a tool call per tick, on a scripted model that answers ` +
      `after ${scale.latencyMs} ms (a timer), against the same runs one at a time. CPU per tick = the ` +
      "process's CPU time / ticks; both include creating and disposing each session. " +
      `${scale.reps} repetitions, alternating, in a child process of their own.`,
    '',
    '| | median | min | max |',
    '| --- | ---: | ---: | ---: |',
    `| CPU per tick, one session at a time | ${ms(scale.single.median)} | ${ms(scale.single.min)} | ${ms(scale.single.max)} |`,
    `| CPU per tick, ${n(scale.sessions)} at once | ${ms(scale.concurrent.median)} | ${ms(scale.concurrent.min)} | ${ms(scale.concurrent.max)} |`,
    `| at once / alone, per repetition | ${scale.ratio.median.toFixed(2)}× | ${scale.ratio.min.toFixed(2)}× | ${scale.ratio.max.toFixed(2)}× |`,
    `| throughput, ticks per second (wall) | ${n(scale.throughput.median)} | ${n(scale.throughput.min)} | ${n(scale.throughput.max)} |`,
    ...(scale.plainThroughput && scale.throughputRatio
      ? [
          `| the fastest plain loop, ${n(scale.sessions)} runs at once: steps per second (wall) | ${n(scale.plainThroughput.median)} | ${n(scale.plainThroughput.min)} | ${n(scale.plainThroughput.max)} |`,
          `| Agate / the fastest plain loop, steps per second, per repetition | ${scale.throughputRatio.median.toFixed(2)}× | ${scale.throughputRatio.min.toFixed(2)}× | ${scale.throughputRatio.max.toFixed(2)}× |`,
        ]
      : []),
    `| wall time of one batch of ${n(scale.sessions)} | ${ms(scale.batchWallMs.median)} | ${ms(scale.batchWallMs.min)} | ${ms(scale.batchWallMs.max)} |`,
    '',
    "One session alone waits for its model with nothing else to do; many sessions share the process's " +
      'fixed per-turn costs (timers, microtask turns, GC), so the CPU per tick can be lower together.',
    '',
  ];
  if (idle) {
    const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
    out.push(
      `Memory: ${n(idle.sessions)} idle sessions (each ran 50 ticks of the workload and waits for its ` +
        `next run, holding ${idle.messages} timeline messages, its React root, state and recent ` +
        `events), heap after GC: **${kib(idle.bytesPerSession)} per session**, of which ` +
        `${kib(idle.bytesPerSession - idle.bytesPerSessionBesideMessages)} are the messages themselves ` +
        `(measured as copies of one timeline) and ${kib(idle.bytesPerSessionBesideMessages)} what ` +
        'Agate keeps around them. Between runs the recent ticks the guards read are kept as ' +
        "records pointing at the timeline's messages, made whole again at the next run's first tick " +
        `(packages/core/src/runtime/recent-ticks.ts).${idle.gcExposed ? '' : ' **Warning:** run without --expose-gc.'}`,
      '',
    );
  }
  return out;
}

/** The cost of OpenTelemetry spans: untraced, the default with no provider, a real SDK tracer. */
function telemetrySection(tick: TickOverheadResult, p: (...lines: string[]) => void): void {
  const untraced = tick.perTick.agateNoTelemetry;
  if (untraced === undefined || TELEMETRY_LOOPS.some((n) => tick.perTick[n] === undefined)) return;
  p(
    '### Telemetry',
    '',
    'The same Agate run three ways (see docs/observability.md): with `telemetry: { enabled: false }` ' +
      '(no telemetry code runs: the untraced tick), with the default options and no tracer provider ' +
      'registered (what every user without OpenTelemetry gets: one span probe per run, then one ' +
      'branch per event), and with a real `BasicTracerProvider` from `@opentelemetry/sdk-trace-base` ' +
      'whose `SimpleSpanProcessor` hands every span to an `InMemorySpanExporter` (three spans ' +
      'per tick in this workload: the tick, the model call, the tool call; an OTLP exporter adds ' +
      'serialization and network, batched off the tick by a `BatchSpanProcessor`). Compared on CPU ' +
      'time (user + system of this process), which, unlike wall time, leaves out the time other ' +
      'processes held the core; ratios and differences are per repetition, against the untraced ' +
      `run of the same repetition. The three loops alternate ${tick.reps} times (${tick.ticks} ` +
      'ticks each, after warm-up runs) in a child process of their own.',
    '',
    '| loop | CPU per tick (median) | CPU min | wall per tick (median) | CPU vs untraced (median of per-rep ratios) | range | difference per tick (median) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const name of TELEMETRY_LOOPS) {
    const cpu = tick.perTick[name]!;
    const wall = tick.wallPerTick[name]!;
    const ratio =
      name === 'agateNoTelemetry'
        ? undefined
        : perRep(tick.samples, name, 'agateNoTelemetry', (x, y) => x / y);
    const diff =
      name === 'agateNoTelemetry'
        ? undefined
        : perRep(tick.samples, name, 'agateNoTelemetry', (x, y) => x - y);
    p(
      `| ${LOOPS[name].label}${name === 'agate' ? ' (default, no provider)' : ''} | ${ms(cpu.median)} | ${ms(cpu.min)} | ${ms(wall.median)} | ${ratio ? `${ratio.median.toFixed(3)}×` : '(baseline)'} | ${ratio ? `${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}×` : ''} | ${diff ? `${diff.median >= 0 ? '+' : '−'}${ms(Math.abs(diff.median))}` : ''} |`,
    );
  }
  p('');
}

/** Issue 9's table: what `<PhaseGates>` does to weak models (docs/phase-gates.md links here). */
function phaseGatesSection(rows: readonly EffectivenessRow[]): string[] {
  return [
    '## Phase gates on weak models',
    '',
    'Not a timing: what `<PhaseGates>` does to scripted weak-model policies (`bench/src/phase/`, ' +
      'also on its own with `pnpm --filter @agate/bench bench:phase`). A *premature finish* is a run ' +
      'that completed without readiness (judged the same way with and without phase gates); a ' +
      '*false block* is a refused finish while readiness held; *ended within bounds* means the run ' +
      'ended `completed` or `blocked` within `maxTicks` (a `max-ticks` end is resumable, not an end); ' +
      'the token share counts the warnings and refusals in the requests (gpt-tokenizer) against ' +
      'everything sent.',
    '',
    renderEffectivenessTable(rows),
    '',
    'The early stopper and the stubborn policy ignore warnings, so warn mode cannot stop them; block ' +
      'mode refuses their finishes until `maxBlocks`, then ends the run `blocked`. The looper never ' +
      'finishes; block mode turns its `max-ticks` into `blocked` (the work was not done). The policy ' +
      'that follows the last instruction acts on the warnings.',
    '',
  ];
}
