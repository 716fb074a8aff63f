import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { AgateEvent } from '../runtime/events.js';

/** A guard decision: recorded as an event (name and attributes) on the tick it was made in. */
export interface DecisionEvent {
  name: string;
  attributes: Attributes;
}

type EventOf<T extends AgateEvent['type']> = Extract<AgateEvent, { type: T }>;
type GateEvent = Extract<AgateEvent, { type: `gate:${string}` }>;

/** Which model-written text a decision may carry (`telemetry.recordOutputs`). */
export interface DecisionRecording {
  outputs: boolean;
}

/** Each decision event's mapper, keyed by its type, so a mapper sees its event's exact shape. */
type Mappers = {
  [T in AgateEvent['type']]?: (event: EventOf<T>, record: DecisionRecording) => Attributes;
};

/**
 * Which events are guard decisions, and the attributes each one carries. The span event is
 * named `agate.` + the event type with `.` for `:` (`agate.gate.activated`), a low-cardinality
 * name; what differs between two decisions of one kind is in the attributes (all `agate.*`).
 */
const DECISIONS: Readonly<Mappers> = {
  'gate:activated': (e: GateEvent) => gateAttributes(e, 'active'),
  'gate:deferred': (e: GateEvent) => gateAttributes(e, 'deferred'),
  'gate:cleared': (e: GateEvent) => gateAttributes(e, 'inactive'),
  'exit:blocked': (e: EventOf<'exit:blocked'>) => ({
    'agate.gate.name': e.gate,
    'agate.gate.names': e.gates,
    'agate.exit.reasons': e.reasons,
    'agate.exit.final': e.final,
  }),
  'command-gate:ran': (e: EventOf<'command-gate:ran'>) =>
    defined({
      'agate.command_gate.name': e.gate,
      'agate.command_gate.command': e.command,
      'agate.command_gate.passed': e.passed,
      'agate.command_gate.exit_code': e.exitCode ?? undefined,
      'agate.command_gate.timed_out': e.timedOut,
      'agate.command_gate.duration_ms': e.durationMs,
      'agate.command_gate.summary': e.summary,
      'agate.command_gate.not_run': e.notRun,
    }),
  'knob:changed': (e: EventOf<'knob:changed'>) =>
    defined({
      'agate.knob.name': e.knob,
      'agate.knob.value': attributeValue(e.value),
      'agate.knob.previous': attributeValue(e.previous),
      'agate.knob.by': e.by,
    }),
  'continue:evaluated': (e: EventOf<'continue:evaluated'>) => ({
    'agate.continue.decision': e.evaluation.decision,
    'agate.continue.reasons': e.evaluation.reasons,
    ...prefixed('agate.continue.metrics.', e.evaluation.metrics),
    'agate.continue.step.number': e.step.stepNumber,
    'agate.continue.step.total_tokens': e.step.totalTokensUsed,
    'agate.continue.step.total_tool_calls': e.step.totalToolCalls,
    'agate.continue.step.rework_count': e.step.reworkCount,
    ...prefixed('agate.continue.budget_remaining.', e.step.budgetRemaining),
  }),
  'continue:throttled': (e: EventOf<'continue:throttled'>) => ({
    'agate.continue.cooldown_ms': e.cooldownMs,
  }),
  'phase:changed': (e: EventOf<'phase:changed'>) => ({
    'agate.gate.understanding': e.status.understanding,
    'agate.gate.change': e.status.change,
    'agate.gate.verification': e.status.verification,
    'agate.gate.readiness': e.status.readiness,
    'agate.gate.files_read': e.status.evidence.filesRead,
    'agate.gate.search_used': e.status.evidence.searchUsed,
    'agate.gate.patches_proposed': e.status.evidence.patchesProposed,
    'agate.gate.verify_used': e.status.evidence.verifyUsed,
    'agate.gate.no_progress_yet': e.status.evidence.noProgressYet,
    'agate.gate.steps_taken': e.status.evidence.stepsTaken,
  }),
  'phase:warning': (e: EventOf<'phase:warning'>) => ({
    'agate.phase.warning.kind': e.kind,
    'agate.phase.warning.text': e.text,
  }),
  // `<Checkpoint>` transitions; `checkpoint.state` is the state the checkpoint is in after it.
  // The submit summary is the model's text (recorded with `recordOutputs`, like tool arguments).
  'checkpoint:submitted': (e: EventOf<'checkpoint:submitted'>, record: DecisionRecording) =>
    defined({
      'agate.checkpoint.id': e.id,
      'agate.checkpoint.state': 'pending',
      'agate.checkpoint.cause': 'submit',
      'agate.checkpoint.by': 'model',
      'agate.checkpoint.summary': record.outputs ? e.summary : undefined,
    }),
  'checkpoint:pending': (e: EventOf<'checkpoint:pending'>, record: DecisionRecording) =>
    defined({
      'agate.checkpoint.id': e.id,
      'agate.checkpoint.state': 'pending',
      'agate.checkpoint.cause': e.cause,
      'agate.checkpoint.by': e.cause === 'submit' ? 'model' : 'runtime',
      // A submit's reason quotes its summary; the runtime's own reasons are always recorded.
      'agate.checkpoint.reason': e.cause !== 'submit' || record.outputs ? e.reason : undefined,
    }),
  'checkpoint:approved': (e: EventOf<'checkpoint:approved'>) =>
    defined({
      'agate.checkpoint.id': e.id,
      'agate.checkpoint.state': 'approved',
      'agate.checkpoint.by': e.by,
      'agate.checkpoint.note': e.note,
    }),
  'checkpoint:rejected': (e: EventOf<'checkpoint:rejected'>) => ({
    'agate.checkpoint.id': e.id,
    // A rejection opens the checkpoint again, with the feedback for the model.
    'agate.checkpoint.state': 'unlocked',
    'agate.checkpoint.by': e.by,
    'agate.checkpoint.feedback': e.feedback,
  }),
  'checkpoint:saved': (e: EventOf<'checkpoint:saved'>) => ({
    'agate.checkpoint.step': e.step,
    'agate.checkpoint.snapshot_id': e.snapshotId,
  }),
};

/** The span event for a guard decision, or undefined for any other event. */
export function decisionEvent(
  event: AgateEvent,
  record: DecisionRecording = { outputs: false },
): DecisionEvent | undefined {
  // Widened once here: DECISIONS pairs every key with the mapper of that event type.
  const map = DECISIONS[event.type] as
    | ((event: AgateEvent, record: DecisionRecording) => Attributes)
    | undefined;
  if (map === undefined) return undefined;
  return { name: `agate.${event.type.replace(':', '.')}`, attributes: map(event, record) };
}

function gateAttributes(e: GateEvent, state: string): Attributes {
  return defined({
    'agate.gate.name': e.gate,
    'agate.gate.state': state,
    'agate.gate.from': e.from,
    'agate.gate.by': e.by,
    'agate.gate.reason': e.reason,
  });
}

/** Numbers of a flat record as `<prefix><snake_case key>` attributes. */
function prefixed(prefix: string, record: Readonly<Record<string, unknown>>): Attributes {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(record)) {
    const converted = attributeValue(value);
    if (converted !== undefined) attributes[`${prefix}${snakeCase(key)}`] = converted;
  }
  return attributes;
}

const MAX_JSON_LENGTH = 1_000;

/**
 * An attribute value for anything: primitives as they are, arrays of one primitive type as
 * arrays, everything else as JSON (capped). Undefined and null leave the attribute out.
 */
export function attributeValue(value: unknown): AttributeValue | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'string')) return value;
    if (value.every((v) => typeof v === 'number')) return value;
    if (value.every((v) => typeof v === 'boolean')) return value;
  }
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_JSON_LENGTH ? `${text.slice(0, MAX_JSON_LENGTH)}…` : text;
}

function defined(attributes: Record<string, AttributeValue | undefined>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
