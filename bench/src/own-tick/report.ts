/** The own-tick row and its section of docs/performance.md (pure: from a measured result). */
import { ms } from '../stats.js';
import { judge, type Verdict } from '../verdict.js';
import type { OwnTickResult } from './measure.js';
import { OWN_TICK_PARTS, type OwnTickPart } from './parts.js';

/** Issue 51 item 2: Agate's own work per tick (the tick minus its AI SDK call). */
export const OWN_TICK_TARGET_MS = 0.03;

export interface OwnTickRow {
  what: string;
  target: string;
  measured: string;
  spread: string;
  verdict: Verdict;
}

const signed = (v: number) => `${v >= 0 ? '+' : '−'}${ms(Math.abs(v))}`;

function shape(result: OwnTickResult): string {
  return `a ${result.ticks}-tick run made from scratch with ${result.tools} tools (\`run()\`: the session's set-up and disposal included)`;
}

export function ownTickRow(result: OwnTickResult | undefined): OwnTickRow {
  if (result === undefined) {
    return {
      what: "Agate's own work per tick (the tick minus its AI SDK call)",
      target: `≤ ${OWN_TICK_TARGET_MS} ms`,
      measured: '—',
      spread: '—',
      verdict: 'not measured',
    };
  }
  const { own, ownPaired, perTick } = result;
  return {
    what:
      `Agate's own work per tick: ${shape(result)} minus the same ${result.ticks} \`generateText\` calls made alone with the arguments Agate prepared for them, per tick ` +
      `(${result.reps} repetitions of ${result.inner} rounds run round-robin, a round running each side once back to back; a repetition's figure is each side's fastest run in it)`,
    target: `≤ ${OWN_TICK_TARGET_MS} ms`,
    measured: `${ms(own.median)} (${ms(perTick.agate.median)} a tick vs ${ms(perTick.sdkCalls.median)} for its call alone; median of paired rounds ${signed(ownPaired.median)})`,
    spread: `${ms(own.min)} – ${ms(own.max)}`,
    verdict: judge(own, OWN_TICK_TARGET_MS),
  };
}

export interface OwnTickPartRow {
  part: OwnTickPart;
  /** CPU ms per tick in the profile (the profiler's overhead included). */
  profiled: number;
  /** The part's share of Agate's own samples (every part but the AI SDK's). */
  share: number;
  /** That share of the row's measured own time (its median). */
  estimated: number;
}

/** Each part of Agate's own work, largest first. */
export function ownTickParts(result: OwnTickResult): OwnTickPartRow[] {
  const own = OWN_TICK_PARTS.reduce((sum, part) => sum + result.parts[part], 0);
  return OWN_TICK_PARTS.map((part) => {
    const share = own > 0 ? result.parts[part] / own : 0;
    return { part, profiled: result.parts[part], share, estimated: share * result.own.median };
  }).sort((a, b) => b.profiled - a.profiled);
}

const PART_TEXT: Record<OwnTickPart, string> = {
  events: 'events: building and delivering them (`runtime/events.ts`), the tick log',
  'render and compile':
    'render and compile: React and the reconciler, compiling the host tree, the context budget',
  'commit and freezing':
    "commit and freezing: the tick's messages into the timeline, deep-frozen; immer's updates",
  guards: 'guards: the guard seam and the families (asked even when none is mounted)',
  'model request': "model request: the request's messages and tools, tracing, the call's wrappers",
  'tool calls': 'tool calls: input validation, `execute`, results and their events',
  'session set-up and disposal':
    "session set-up and disposal: `createSession`, `dispose()`, the run's start and end",
  'garbage collection': 'garbage collection (of both sides: the SDK call allocates too)',
  other: 'other: the tick loop itself, promise turns, V8 work no function owns',
};

export function ownTickSection(result: OwnTickResult | undefined): string[] {
  if (result === undefined) return [];
  const sdk = result.parts['AI SDK call'];
  return [
    "### Agate's own tick",
    '',
    `Agate's own work in a tick is the tick minus its AI SDK call. Both sides run in a child process of their own (NODE_ENV=production, Agate's built \`dist/\`): ${shape(result)}, and the same ${result.ticks} \`generateText\` calls made alone, one after another, with the very arguments Agate passed (messages, tools, settings; only the scripted model is a new one per run, as on Agate's side). The arguments are taken from \`@agate/core\`'s \`dist/\` by a module hook that hands the bundle an \`ai\` module whose \`generateText\` records its argument and calls the real one (\`bench/src/own-tick/sdk-tap.ts\`; it adds one function call to each of Agate's ticks). What is left is Agate's: rendering, guards, events, the request's preparation, running the tool calls (which the AI SDK call, offered tools without \`execute\`, does not), committing the tick, the session's set-up and disposal.`,
    '',
    `| side | CPU per tick (median) | min | max |`,
    '| --- | ---: | ---: | ---: |',
    `| Agate \`run()\`, a tick | ${ms(result.perTick.agate.median)} | ${ms(result.perTick.agate.min)} | ${ms(result.perTick.agate.max)} |`,
    `| its \`generateText\` call alone | ${ms(result.perTick.sdkCalls.median)} | ${ms(result.perTick.sdkCalls.min)} | ${ms(result.perTick.sdkCalls.max)} |`,
    `| Agate's own (per repetition) | ${ms(result.own.median)} | ${ms(result.own.min)} | ${ms(result.own.max)} |`,
    '',
    `Where Agate's own time goes: a CPU profile (V8's sampler, every ${result.samplingUs} µs) of ${result.profiledTicks.toLocaleString('en-US')} ticks of the same runs, each sample given to a part by the code on its stack: the source module of \`@agate/core\`'s bundled code (esbuild marks where each module starts), the package of a dependency's (\`bench/src/own-tick/parts.ts\`). The profile's runs are typical ones (GC pauses included) and the profiler slows them, so its milliseconds are larger than the fastest runs' above; the share of each part is what it says, and the last column applies it to the measured own time. The AI SDK's code in the same profile: ${ms(sdk)} per tick.`,
    '',
    "| part | CPU per tick, profiled | share of Agate's own | of the measured own time |",
    '| --- | ---: | ---: | ---: |',
    ...ownTickParts(result).map(
      (row) =>
        `| ${PART_TEXT[row.part]} | ${ms(row.profiled)} | ${(row.share * 100).toFixed(1)}% | ${ms(row.estimated)} |`,
    ),
    '',
  ];
}
