import {
  Checkpoint,
  ContinueGate,
  Gate,
  gate,
  PhaseGates,
  run,
  System,
  type TelemetryOptions,
  Timeline,
  Todos,
  Tool,
  User,
} from '@agate/core';
import type { SeedState } from '@agate/core/guards';
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import {
  generateText,
  isStepCount,
  type ModelMessage,
  streamText,
  ToolLoopAgent,
  type ToolSet,
  tool,
  zodSchema,
} from 'ai';
import { z } from 'zod';

/**
 * The workload both sides run: the same system prompt, task, tools and scripted replies.
 * Reply i (0-based) calls tool_(i % tools); the last reply is plain text, so a run of N ticks
 * is N model calls, N-1 of them with one tool call each. The wide workload has 21 tools (issue
 * 42's shape); the narrow one, the first two of them (what the peers bench runs everywhere).
 */
export const TOOL_COUNT = 21;
export const NARROW_TOOL_COUNT = 2;
export const SYSTEM =
  'You are a benchmark agent. Call the tool you are asked to call, then finish.';
export const TASK = 'Work through the checklist, one tool call per step.';

export const toolInput = z.object({
  id: z.number().int().describe('Checklist item number.'),
  note: z.string().describe('A short note about the item.'),
});

let executed = 0;

/** Every side's tools run this; the peers bench checks the count (one increment per call). */
export function executeTool(input: z.output<typeof toolInput>): {
  ok: true;
  id: number;
  length: number;
} {
  executed++;
  return { ok: true, id: input.id, length: input.note.length };
}

/** Tool calls `executeTool` ran in this process. */
export function executedToolCalls(): number {
  return executed;
}

export const TOOL_NAMES = Array.from({ length: TOOL_COUNT }, (_, i) => `tool_${i}`);

export const FINAL_TEXT = 'All checklist items are done.';

/** The scripted model's reply to its call `index` (0-based) in a run of `ticks` model calls. */
export function replyAt(
  index: number,
  ticks: number,
  tools: number = TOOL_COUNT,
): { toolName: string; input: string } | { text: string } {
  if (index >= ticks - 1) return { text: FINAL_TEXT };
  return {
    toolName: TOOL_NAMES[index % tools]!,
    input: JSON.stringify({ id: index, note: `item ${index} checked` }),
  };
}

const USAGE: LanguageModelV4Usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

/**
 * A scripted LanguageModelV4 that, unlike `MockLanguageModelV4` and `scriptedModel`, keeps
 * nothing per call: both of those record every call's prompt, which over a 1,000-tick run
 * is O(ticks²) messages and would dominate the memory figures and add GC noise to timings.
 * Fixed usage numbers, for the same reason (no prompt stringifying).
 */
export function benchModel(
  ticks: number,
  tools: number = TOOL_COUNT,
): LanguageModelV4 & { readonly calls: number } {
  let calls = 0;
  const next = (options: LanguageModelV4CallOptions) => {
    options.abortSignal?.throwIfAborted();
    const index = calls++;
    return { index, reply: replyAt(index, ticks, tools) };
  };
  const finishReason = (toolCall: boolean) => ({
    unified: toolCall ? ('tool-calls' as const) : ('stop' as const),
    raw: undefined,
  });
  const model = {
    specificationVersion: 'v4' as const,
    provider: 'agate-bench',
    modelId: 'scripted',
    supportedUrls: {},
    get calls() {
      return calls;
    },
    async doGenerate(options: LanguageModelV4CallOptions) {
      const { index, reply } = next(options);
      const content: LanguageModelV4Content[] =
        'text' in reply
          ? [{ type: 'text', text: reply.text }]
          : [{ type: 'tool-call', toolCallId: `call-${index}`, ...reply }];
      return {
        content,
        finishReason: finishReason(!('text' in reply)),
        usage: USAGE,
        warnings: [],
      };
    },
    async doStream(options: LanguageModelV4CallOptions) {
      const { index, reply } = next(options);
      const parts: LanguageModelV4StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: `response-${index}`, modelId: 'scripted' },
      ];
      if ('text' in reply) {
        parts.push({ type: 'text-start', id: 't' });
        parts.push({ type: 'text-delta', id: 't', delta: reply.text });
        parts.push({ type: 'text-end', id: 't' });
      } else {
        parts.push({ type: 'tool-call', toolCallId: `call-${index}`, ...reply });
      }
      parts.push({ type: 'finish', finishReason: finishReason(!('text' in reply)), usage: USAGE });
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
  return model;
}

/** A timer of `ms` (a model's latency: time, not CPU work); nothing to wait for when 0. */
export function wait(ms: number): Promise<void> | undefined {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined;
}

/** `model`, answering after `latencyMs` (the many-runs-at-once rows). */
export function withLatency(
  model: LanguageModelV4 & { readonly calls: number },
  latencyMs: number,
): LanguageModelV4 & { readonly calls: number } {
  return {
    specificationVersion: 'v4',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: {},
    get calls() {
      return model.calls;
    },
    async doGenerate(options) {
      await wait(latencyMs);
      return model.doGenerate(options);
    },
    async doStream(options) {
      await wait(latencyMs);
      return model.doStream(options);
    },
  };
}

/** Every tool's name and description, made once (both sides then do the same work per run). */
export const TOOL_SPECS = TOOL_NAMES.map((name) => ({
  name,
  description: `Checks one checklist item (${name}).`,
}));

/** The first `count` of `items`, sliced once per count (the narrow and the wide workloads). */
function firstOf<T>(items: readonly T[]): (count: number) => readonly T[] {
  const cache = new Map<number, readonly T[]>();
  return (count) => {
    let slice = cache.get(count);
    if (slice === undefined) {
      if (count < 1 || count > items.length) throw new Error(`between 1 and ${items.length} tools`);
      slice = items.slice(0, count);
      cache.set(count, slice);
    }
    return slice;
  };
}

/**
 * The same tools as ready AI SDK tools whose schema was converted to JSON Schema once
 * (`zodSchema()` caches the conversion). The AI SDK converts a bare zod schema again on every
 * call; this variant shows what caching that conversion is worth.
 */
const PRECONVERTED = TOOL_SPECS.map(({ name, description }) => ({
  name,
  tool: tool({ description, inputSchema: zodSchema(toolInput), execute: executeTool }),
}));
const preconvertedTools = firstOf(PRECONVERTED);
const toolSpecs = firstOf(TOOL_SPECS);

/** A gate that never activates: mounted, asked every tick, never in the way. */
const IDLE_GATE = gate({
  description: 'Report before finishing (never activates in the benchmark)',
  instructions: 'Write the report, then clear this gate.',
  activateWhen: () => false,
});

/**
 * The guards of the "guards mounted" rows, idle for the whole run: each tick they are rendered,
 * asked before the model call and at tick end, and let everything through. Mounting another
 * guard family in the benchmark is one more line here.
 */
export function IdleGuards() {
  return (
    <>
      <Gate name="report" {...IDLE_GATE} />
      <ContinueGate maxConsecutiveSteps={1_000_000} checkpointIntervalSteps={1_000_000} />
      <Checkpoint id="reviewed" task="Reviewed before the run (approved in IDLE_GUARD_STATE)" />
      <Todos />
      <PhaseGates mode="warn" />
    </>
  );
}

/**
 * The idle guards' state: the checkpoint was approved before the run (an open one holds the
 * run's final reply for a supervisor, which is not idle).
 */
const AT = '2026-01-01T00:00:00.000Z';
export const IDLE_GUARD_STATE: SeedState = {
  guards: {
    checkpoints: {
      records: { reviewed: { state: 'approved', ticks: 0, openedAtTick: 0 } },
      ledger: [
        {
          seq: 1,
          checkpoint: 'reviewed',
          kind: 'submitted',
          by: 'model',
          at: AT,
          tick: 0,
          summary: 'x',
        },
        {
          seq: 2,
          checkpoint: 'reviewed',
          kind: 'approved',
          by: 'bench',
          at: AT,
          tick: 0,
          answers: 1,
        },
      ],
    },
  },
};

/**
 * The agent Agate runs: its `<Tool>`s' schema (`toolInput`), descriptions and `execute` are made
 * once at module level, as the plain loops' tools are. `tools`: how many of them (default all).
 */
export function BenchAgent(props: { preconverted?: boolean; guards?: boolean; tools?: number }) {
  const guards = props.guards ? <IdleGuards /> : null;
  const count = props.tools ?? TOOL_COUNT;
  if (props.preconverted) {
    return (
      <>
        <System>{SYSTEM}</System>
        <User>{TASK}</User>
        <Timeline />
        {preconvertedTools(count).map((t) => (
          <Tool key={t.name} name={t.name} tool={t.tool} />
        ))}
        {guards}
      </>
    );
  }
  return (
    <>
      <System>{SYSTEM}</System>
      <User>{TASK}</User>
      <Timeline />
      {toolSpecs(count).map(({ name, description }) => (
        <Tool
          key={name}
          name={name}
          description={description}
          input={toolInput}
          execute={executeTool}
        />
      ))}
      {guards}
    </>
  );
}

/**
 * What a loop hands back: the run's own result object (a `RunResult`, a `GenerateTextResult`,
 * or the streamText steps), kept so the memory figures can include what a caller holds.
 */
export interface LoopOutcome {
  ticks: number;
  result: unknown;
}

export interface LoopOptions {
  /** Called after every tick/step (memory sampling). */
  onTick?: () => void;
  /** Tools whose zod schema was converted to JSON Schema once, up front. */
  preconverted?: boolean;
  /** Plain loops: `telemetry: { isEnabled: false }` (what Agate passes when nothing listens). */
  sdkTelemetryOff?: boolean;
  /** Agate's `streaming` session option (default `'auto'`). */
  streaming?: boolean;
  /** Mount the idle guards (a gate, a ContinueGate, a checkpoint, a todo list, phase gates). */
  guards?: boolean;
  /** Agate's `telemetry` session option (default: on, spans only if a provider is registered). */
  telemetry?: TelemetryOptions | (() => TelemetryOptions);
  /** How many of the workload's tools (default all, `TOOL_COUNT`). */
  tools?: number;
  /** The model (default `benchModel(ticks, tools)`); the scale rows pass one with latency. */
  model?: LanguageModelV4;
}

/** Agate: `run()` on the agent tree. */
export async function runAgate(ticks: number, options: LoopOptions = {}): Promise<LoopOutcome> {
  const { onTick } = options;
  const agent = (
    <BenchAgent
      preconverted={options.preconverted ?? false}
      guards={options.guards ?? false}
      tools={options.tools ?? TOOL_COUNT}
    />
  );
  const result = await run(agent, {
    model: options.model ?? benchModel(ticks, options.tools),
    maxTicks: ticks + 5,
    maxTimelineMessages: Math.max(5_000, ticks * 2 + 10),
    ...(options.guards ? { state: IDLE_GUARD_STATE } : {}),
    ...(options.telemetry !== undefined
      ? {
          telemetry:
            typeof options.telemetry === 'function' ? options.telemetry() : options.telemetry,
        }
      : {}),
    ...(options.streaming !== undefined ? { streaming: options.streaming } : {}),
    ...(onTick ? { onEvent: (e) => e.type === 'tick:end' && onTick() } : {}),
  });
  if (result.status !== 'completed' || result.ticks !== ticks) {
    throw new Error(
      `Agate run ended ${result.status} after ${result.ticks} ticks: ${result.reason ?? ''}`,
    );
  }
  return { ticks: result.ticks, result };
}

/**
 * The plain loops' tools, made once with `tool()` the way the AI SDK docs show (a zod
 * `inputSchema`, which the AI SDK converts to JSON Schema on every step).
 */
const SDK_TOOLS = TOOL_SPECS.map(({ name, description }) => ({
  name,
  tool: tool({ description, inputSchema: toolInput, execute: executeTool }),
}));

/** A tool set per (variant, count), made once: no loop builds its tools per run. */
const toolSets = new Map<string, ToolSet>();
function sdkTools(preconverted: boolean, count: number = TOOL_COUNT): ToolSet {
  const key = `${preconverted}:${count}`;
  let set = toolSets.get(key);
  if (set === undefined) {
    const tools = preconverted ? preconvertedTools(count) : SDK_TOOLS.slice(0, count);
    set = Object.fromEntries(tools.map((t) => [t.name, t.tool]));
    toolSets.set(key, set);
  }
  return set;
}

export const MESSAGES: ModelMessage[] = [{ role: 'user', content: TASK }];

/** The plain AI SDK tool loop: `generateText` with executing tools and `stopWhen`. */
export async function runGenerateTextLoop(
  ticks: number,
  options: LoopOptions = {},
): Promise<LoopOutcome> {
  const { onTick } = options;
  const result = await generateText({
    model: options.model ?? benchModel(ticks, options.tools),
    instructions: SYSTEM,
    messages: MESSAGES,
    tools: sdkTools(options.preconverted ?? false, options.tools),
    stopWhen: isStepCount(ticks),
    ...(options.sdkTelemetryOff ? { telemetry: { isEnabled: false } } : {}),
    ...(onTick ? { onStepEnd: () => onTick() } : {}),
  });
  if (result.steps.length !== ticks || result.text === '') {
    throw new Error(`generateText loop took ${result.steps.length} steps, expected ${ticks}.`);
  }
  return { ticks: result.steps.length, result };
}

/** The same loop through `streamText` (what Agate calls each tick), consuming the full stream. */
export async function runStreamTextLoop(
  ticks: number,
  options: LoopOptions = {},
): Promise<LoopOutcome> {
  const { onTick } = options;
  const result = streamText({
    model: options.model ?? benchModel(ticks, options.tools),
    instructions: SYSTEM,
    messages: MESSAGES,
    tools: sdkTools(options.preconverted ?? false, options.tools),
    stopWhen: isStepCount(ticks),
    ...(onTick ? { onStepEnd: () => onTick() } : {}),
  });
  for await (const part of result.fullStream) {
    if (part.type === 'error') throw part.error;
  }
  const steps = await result.steps;
  if (steps.length !== ticks) {
    throw new Error(`streamText loop took ${steps.length} steps, expected ${ticks}.`);
  }
  return { ticks: steps.length, result: steps };
}

/** The AI SDK's own agent class, written the way its docs show: one agent, `generate()`. */
export async function runToolLoopAgent(
  ticks: number,
  options: LoopOptions = {},
): Promise<LoopOutcome> {
  const { onTick } = options;
  // The scripted model counts its calls, so each run gets a fresh agent; the tools are shared.
  const agent = new ToolLoopAgent({
    model: options.model ?? benchModel(ticks, options.tools),
    instructions: SYSTEM,
    tools: sdkTools(options.preconverted ?? false, options.tools),
    stopWhen: isStepCount(ticks),
  });
  const result = await agent.generate({
    prompt: TASK,
    ...(onTick ? { onStepEnd: () => onTick() } : {}),
  });
  if (result.steps.length !== ticks || result.text === '') {
    throw new Error(`ToolLoopAgent took ${result.steps.length} steps, expected ${ticks}.`);
  }
  return { ticks: result.steps.length, result };
}

export interface Loop {
  /** How the report names it. */
  label: string;
  /** One run of `ticks` model calls over the first `tools` tools (default all). */
  run: (ticks: number, onTick?: () => void, tools?: number) => Promise<LoopOutcome>;
}

export const LOOP_NAMES = [
  'agate',
  'generateText',
  'streamText',
  'toolLoopAgent',
  'agateStreaming',
  'agateGuards',
  'agatePreconverted',
  'generateTextPreconverted',
  'generateTextTuned',
  'streamTextPreconverted',
  'toolLoopAgentPreconverted',
  'agateNoTelemetry',
  'agateTraced',
] as const;

export type LoopName = (typeof LOOP_NAMES)[number];

/** The loops measured side by side. The first four are the comparison; the rest diagnose it. */
export const LOOPS: Record<LoopName, Loop> = {
  agate: {
    label: 'Agate `run()`, default',
    run: (n, onTick, tools) => runAgate(n, { onTick, tools }),
  },
  generateText: {
    label: 'AI SDK `generateText` loop',
    run: (n, onTick, tools) => runGenerateTextLoop(n, { onTick, tools }),
  },
  streamText: {
    label: 'AI SDK `streamText` loop',
    run: (n, onTick, tools) => runStreamTextLoop(n, { onTick, tools }),
  },
  toolLoopAgent: {
    label: 'AI SDK `ToolLoopAgent`',
    run: (n, onTick, tools) => runToolLoopAgent(n, { onTick, tools }),
  },
  agateStreaming: {
    label: 'Agate `run()`, `streaming: true`',
    run: (n, onTick, tools) => runAgate(n, { onTick, tools, streaming: true }),
  },
  agateGuards: {
    label: 'Agate `run()`, idle guards mounted',
    run: (n, onTick, tools) => runAgate(n, { onTick, tools, guards: true }),
  },
  agatePreconverted: {
    label: 'Agate `run()`, schemas pre-converted',
    run: (n, onTick, tools) => runAgate(n, { onTick, tools, preconverted: true }),
  },
  generateTextPreconverted: {
    label: '`generateText` loop, schemas pre-converted',
    run: (n, onTick, tools) => runGenerateTextLoop(n, { onTick, tools, preconverted: true }),
  },
  generateTextTuned: {
    label:
      "Fastest plain loop: `generateText`, tools made once (`tool()` + `zodSchema`), the SDK's telemetry off",
    run: (n, onTick, tools) =>
      runGenerateTextLoop(n, { onTick, tools, preconverted: true, sdkTelemetryOff: true }),
  },
  streamTextPreconverted: {
    label: '`streamText` loop, schemas pre-converted',
    run: (n, onTick, tools) => runStreamTextLoop(n, { onTick, tools, preconverted: true }),
  },
  toolLoopAgentPreconverted: {
    label: '`ToolLoopAgent`, schemas pre-converted',
    run: (n, onTick, tools) => runToolLoopAgent(n, { onTick, tools, preconverted: true }),
  },
  agateNoTelemetry: {
    label: 'Agate `run()`, `telemetry: { enabled: false }`',
    run: (n, onTick, tools) => runAgate(n, { onTick, tools, telemetry: { enabled: false } }),
  },
  agateTraced: {
    label: 'Agate `run()`, SDK tracer + in-memory exporter',
    run: (n, onTick, tools) => runAgate(n, { onTick, tools, telemetry: inMemoryTracer }),
  },
};

/**
 * The reference of every target row: the fastest plain AI SDK loop a speed-minded user writes
 * (`generateText` with its tools made once by `tool()` + `zodSchema()`, and
 * `telemetry: { isEnabled: false }`, which skips the SDK's per-step telemetry dispatch).
 */
export const FASTEST_PLAIN = 'generateTextTuned' satisfies LoopName;

/** The telemetry comparison: untraced, the default with no provider registered, a real tracer. */
export const TELEMETRY_LOOPS: readonly LoopName[] = ['agateNoTelemetry', 'agate', 'agateTraced'];

/**
 * A real OpenTelemetry SDK tracer for one run: every span is built, processed and handed to an
 * in-memory exporter (what an OTLP exporter would receive, minus the network).
 */
function inMemoryTracer(): TelemetryOptions {
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
  });
  return { tracer: provider.getTracer('bench') };
}

export function isLoopName(name: string): name is LoopName {
  return (LOOP_NAMES as readonly string[]).includes(name);
}
