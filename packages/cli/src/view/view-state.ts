import type { AgateEvent, JsonValue, RunStatus } from '@agate/core';
import type {
  CheckpointStatus,
  ContinueDecision,
  GateStatus,
  StepContext,
  UsageTotals,
} from '@agate/core/guards';
import { asText, preview } from '../format/table.js';

/** Longest tool input or output kept for display, in characters. */
export const PREVIEW_LENGTH = 160;

/** `held`: waiting for a person's approval (`<Tool needsApproval>`); not executed. */
export type ToolStatus = 'running' | 'ok' | 'error' | 'refused' | 'held';

export interface ToolLine {
  type: 'tool';
  /** The tool call id. */
  id: string;
  name: string;
  input: string;
  status: ToolStatus;
  /** The result (ok / error) or the refusal message, cut to `PREVIEW_LENGTH`. */
  output?: string;
  /** The guard family that refused it. */
  refusedBy?: string;
}

/** Something a guard did during a tick: a gate changed, an exit was refused, a warning, ... */
export interface TickNote {
  type: 'note';
  /** `note-<n>`: its place in the tick (entries are only ever appended). */
  id: string;
  kind: 'gate' | 'knob' | 'exit-refused' | 'warning' | 'continue' | 'checkpoint';
  text: string;
}

export interface TickView {
  tick: number;
  /** The model's text so far (streamed), then its whole reply. */
  text: string;
  /** Tool calls and notes in the order they happened. */
  entries: Array<ToolLine | TickNote>;
}

export interface ContinueView {
  tick: number;
  decision: ContinueDecision;
  reasons: string[];
  step: number;
  tokensUsed: number;
  toolCalls: number;
  budgetRemaining: StepContext['budgetRemaining'];
  stepsUntilCheckpoint: number;
}

export interface GateView {
  state: GateStatus;
  /** Exit attempts it has refused since last cleared. */
  blocks: number;
  /** Refusals allowed before the run ends blocked, when known. */
  maxBlocks?: number;
}

export interface CheckpointView {
  state: CheckpointStatus;
  /** While pending: why (the submission, the budget, the file trigger). */
  reason?: string;
}

export interface RunEnd {
  status: RunStatus;
  reason?: string;
  ticks: number;
  /** `<Output>`'s checked object, when the run produced one. */
  output?: unknown;
}

/** What the live view shows; built from events only, by `reduceView`. */
export interface RunViewState {
  sessionId?: string;
  /** The tick in progress (or the last one, once the run ended); 0 before the first. */
  tick: number;
  /** Finished ticks, oldest first (printed once, above the live part). */
  done: TickView[];
  current?: TickView;
  gates: Record<string, GateView>;
  knobs: Record<string, JsonValue>;
  checkpoints: Record<string, CheckpointView>;
  continueGate?: ContinueView;
  usage: UsageTotals;
  end?: RunEnd;
  /**
   * Sub-agents started by this run's tool calls, by path segment (`reviewer#call_3`): each a
   * view of its own, built from the events that carry that path.
   */
  children?: Record<string, RunViewState>;
}

/**
 * Facts the events do not carry, read from the session when the view asks (gates and knobs
 * that exist but have not changed yet, e.g. a gate that starts deferred).
 */
export interface SessionFacts {
  type: 'view:facts';
  gates: Record<string, GateView>;
  knobs: Record<string, JsonValue>;
  checkpoints: Record<string, CheckpointView>;
}

export type ViewAction = AgateEvent | SessionFacts;

export function initialView(): RunViewState {
  return {
    tick: 0,
    done: [],
    gates: {},
    knobs: {},
    checkpoints: {},
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  };
}

const GATE_TARGET = {
  'gate:activated': 'active',
  'gate:deferred': 'deferred',
  'gate:cleared': 'inactive',
} as const;

/** The view's whole logic: one event (or session fact) in, the next view state out. Pure. */
export function reduceView(view: RunViewState, action: ViewAction): RunViewState {
  if (action.type !== 'view:facts' && action.path !== undefined && action.path.length > 0) {
    return reduceChild(view, action);
  }
  switch (action.type) {
    case 'view:facts':
      return {
        ...view,
        gates: { ...action.gates },
        knobs: { ...action.knobs },
        checkpoints: { ...action.checkpoints },
      };
    case 'run:start':
      return { ...view, sessionId: action.sessionId, tick: action.tick, end: undefined };
    case 'tick:start':
      return {
        ...view,
        tick: action.tick,
        done: view.current ? [...view.done, view.current] : view.done,
        current: { tick: action.tick, text: '', entries: [] },
      };
    case 'model:delta':
      if (action.kind !== 'text') return view;
      return withCurrent(view, (t) => ({ ...t, text: t.text + action.delta }));
    case 'model:response':
      return {
        ...withCurrent(view, (t) => ({ ...t, text: action.text })),
        usage: addUsage(view.usage, action.usage),
      };
    case 'tool:call':
    case 'tool:refused':
    case 'tool:held':
    case 'tool:result':
      return reduceTool(view, action);
    case 'gate:activated':
    case 'gate:deferred':
    case 'gate:cleared':
    case 'knob:changed':
    case 'exit:blocked':
    case 'continue:evaluated':
    case 'continue:throttled':
      return reduceGate(view, action);
    case 'checkpoint:saved':
      return addNote(
        view,
        'checkpoint',
        `restore point ${action.snapshotId} saved (step ${action.step})`,
      );
    case 'checkpoint:submitted':
      return addNote(view, 'checkpoint', `checkpoint ${action.id} submitted: ${action.summary}`);
    case 'checkpoint:pending':
      return addNote(
        withCheckpoint(view, action.id, { state: 'pending', reason: action.reason }),
        'checkpoint',
        `checkpoint ${action.id} pending (${action.cause}): ${action.reason}`,
      );
    case 'checkpoint:approved':
      return addNote(
        withCheckpoint(view, action.id, { state: 'approved' }),
        'checkpoint',
        `checkpoint ${action.id} approved by ${action.by}${action.note ? `: ${action.note}` : ''}`,
      );
    case 'checkpoint:rejected':
      return addNote(
        withCheckpoint(view, action.id, { state: 'unlocked' }),
        'checkpoint',
        `checkpoint ${action.id} rejected by ${action.by}: ${action.feedback}`,
      );
    case 'warning':
      return addNote(view, 'warning', `warning (${action.code}): ${action.message}`);
    case 'run:end': {
      return {
        ...view,
        done: view.current ? [...view.done, view.current] : view.done,
        current: undefined,
        end: {
          status: action.status,
          ...(action.reason !== undefined ? { reason: action.reason } : {}),
          ticks: action.ticks,
          ...(action.output !== undefined ? { output: action.output } : {}),
        },
      };
    }
    default:
      return view;
  }
}

type ActionOf<T extends ViewAction['type']> = Extract<ViewAction, { type: T }>;

/** A tool call's line: started, refused, held or answered. */
function reduceTool(
  view: RunViewState,
  action: ActionOf<'tool:call' | 'tool:refused' | 'tool:held' | 'tool:result'>,
): RunViewState {
  switch (action.type) {
    case 'tool:call':
      return withCurrent(view, (t) => ({
        ...t,
        entries: [
          ...t.entries,
          {
            type: 'tool',
            id: action.toolCallId,
            name: action.toolName,
            input: preview(asText(action.input), PREVIEW_LENGTH),
            status: 'running',
          },
        ],
      }));
    case 'tool:refused':
      return updateTool(view, action.toolCallId, (line) => ({
        ...line,
        status: 'refused',
        output: preview(action.message, PREVIEW_LENGTH),
        refusedBy: action.by,
      }));
    case 'tool:held':
      return updateTool(view, action.toolCallId, (line) => ({
        ...line,
        status: 'held',
        output: `awaiting approval (call ${action.toolCallId}): ${action.reason}`,
      }));
    case 'tool:result':
      return updateTool(view, action.toolCallId, (line) =>
        // The refusal message is the result too; keep it marked as refused.
        line.status === 'refused'
          ? line
          : {
              ...line,
              status: action.isError ? 'error' : 'ok',
              output: preview(asText(action.output), PREVIEW_LENGTH),
            },
      );
  }
}

/** Gates, knobs, a refused exit and the ContinueGate's verdicts: state plus a note. */
function reduceGate(
  view: RunViewState,
  action: ActionOf<
    | 'gate:activated'
    | 'gate:deferred'
    | 'gate:cleared'
    | 'knob:changed'
    | 'exit:blocked'
    | 'continue:evaluated'
    | 'continue:throttled'
  >,
): RunViewState {
  switch (action.type) {
    case 'gate:activated':
    case 'gate:deferred':
    case 'gate:cleared': {
      const to = GATE_TARGET[action.type];
      const before = view.gates[action.gate];
      const gate: GateView = {
        ...before,
        state: to,
        blocks: to === 'inactive' ? 0 : (before?.blocks ?? 0),
      };
      return addNote(
        { ...view, gates: { ...view.gates, [action.gate]: gate } },
        'gate',
        `gate ${action.gate}: ${action.from} → ${to} (by ${action.by})`,
      );
    }
    case 'knob:changed':
      return addNote(
        { ...view, knobs: { ...view.knobs, [action.knob]: action.value } },
        'knob',
        `knob ${action.knob} = ${JSON.stringify(action.value)} (by ${action.by})`,
      );
    case 'exit:blocked': {
      const gates = { ...view.gates };
      for (const name of action.gates) {
        const gate = gates[name];
        if (gate) gates[name] = { ...gate, blocks: gate.blocks + 1 };
      }
      // A refused finish call's line already reads `Not accepted: …` (the core judged the exit
      // before its result went out): it is shown as the model read it, not relabelled.
      return addNote(
        { ...view, gates },
        'exit-refused',
        `exit refused${action.final ? ' (final: the run ends blocked)' : ''}: ${action.reasons.join(' ')}`,
      );
    }
    case 'continue:evaluated': {
      const { evaluation, step } = action;
      const next: RunViewState = {
        ...view,
        continueGate: {
          tick: action.tick,
          decision: evaluation.decision,
          reasons: evaluation.reasons,
          step: step.stepNumber,
          tokensUsed: step.totalTokensUsed,
          toolCalls: step.totalToolCalls,
          budgetRemaining: step.budgetRemaining,
          stepsUntilCheckpoint: evaluation.metrics.stepsUntilCheckpoint,
        },
      };
      return evaluation.decision === 'continue'
        ? next
        : addNote(
            next,
            'continue',
            `ContinueGate: ${evaluation.decision} — ${evaluation.reasons.join('; ')}`,
          );
    }
    case 'continue:throttled':
      return addNote(view, 'continue', `ContinueGate: waiting ${action.cooldownMs} ms (throttle)`);
  }
}

/** An event of a sub-agent: into its own view, one level down per path segment. */
function reduceChild(view: RunViewState, event: AgateEvent): RunViewState {
  const [segment, ...rest] = event.path as string[];
  const key = segment as string;
  const child = view.children?.[key] ?? initialView();
  const inner = { ...event } as AgateEvent;
  if (rest.length > 0) inner.path = rest;
  else delete inner.path;
  return { ...view, children: { ...view.children, [key]: reduceView(child, inner) } };
}

function withCheckpoint(view: RunViewState, id: string, checkpoint: CheckpointView): RunViewState {
  return { ...view, checkpoints: { ...view.checkpoints, [id]: checkpoint } };
}

function withCurrent(view: RunViewState, change: (tick: TickView) => TickView): RunViewState {
  const current = view.current ?? { tick: view.tick, text: '', entries: [] };
  return { ...view, current: change(current) };
}

function updateTool(
  view: RunViewState,
  id: string,
  change: (line: ToolLine) => ToolLine,
): RunViewState {
  return withCurrent(view, (t) => ({
    ...t,
    entries: t.entries.map((entry) =>
      entry.type === 'tool' && entry.id === id ? change(entry) : entry,
    ),
  }));
}

function addNote(view: RunViewState, kind: TickNote['kind'], text: string): RunViewState {
  // Notes before the first tick (a warning at render) still need a place to show.
  return withCurrent(view, (t) => ({
    ...t,
    entries: [...t.entries, { type: 'note', id: `note-${t.entries.length}`, kind, text }],
  }));
}

function addUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}
