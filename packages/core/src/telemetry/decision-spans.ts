import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { AgateEvent } from '../runtime/events.js';

/** A guard decision as a span: its name and attributes (it has no duration of its own). */
export interface DecisionSpan {
  name: string;
  attributes: Attributes;
}

type EventOf<T extends AgateEvent['type']> = Extract<AgateEvent, { type: T }>;
type GateEvent = Extract<AgateEvent, { type: `gate:${string}` }>;

/**
 * Events other families add to `AgateEvent`. Read structurally, so this module compiles before
 * and after they join the union; values are converted whatever their exact types turn out to be.
 */
interface PhaseChangedEvent {
  type: 'phase:changed';
  tick: number;
  status: {
    understanding?: unknown;
    change?: unknown;
    verification?: unknown;
    readiness?: unknown;
    evidence?: {
      filesRead?: unknown;
      searchUsed?: unknown;
      patchesProposed?: unknown;
      verifyUsed?: unknown;
      noProgressYet?: unknown;
      stepsTaken?: unknown;
    };
  };
}

type Mapper = (event: never) => Attributes;

/**
 * Which events are guard decisions, and the attributes each one carries. The span is named
 * `agate.` + the event type with `.` for `:` (`agate.gate.activated`), a low-cardinality name;
 * what differs between two decisions of one kind is in the attributes.
 */
const DECISIONS: Readonly<Record<string, Mapper>> = {
  'gate:activated': (e: GateEvent) => gateAttributes(e, 'active'),
  'gate:deferred': (e: GateEvent) => gateAttributes(e, 'deferred'),
  'gate:cleared': (e: GateEvent) => gateAttributes(e, 'inactive'),
  'exit:blocked': (e: EventOf<'exit:blocked'>) => ({
    'gate.name': e.gate,
    'gate.names': e.gates,
    'exit.reasons': e.reasons,
    'exit.final': e.final,
  }),
  'knob:changed': (e: EventOf<'knob:changed'>) =>
    defined({
      'knob.name': e.knob,
      'knob.value': attributeValue(e.value),
      'knob.previous': attributeValue(e.previous),
      'knob.by': e.by,
    }),
  'continue:evaluated': (e: EventOf<'continue:evaluated'>) => ({
    'continue.decision': e.evaluation.decision,
    'continue.reasons': e.evaluation.reasons,
    ...prefixed('continue.metrics.', e.evaluation.metrics),
    'continue.step.number': e.step.stepNumber,
    'continue.step.total_tokens': e.step.totalTokensUsed,
    'continue.step.total_tool_calls': e.step.totalToolCalls,
    'continue.step.rework_count': e.step.reworkCount,
    ...prefixed('continue.budget_remaining.', e.step.budgetRemaining),
  }),
  'continue:throttled': (e: EventOf<'continue:throttled'>) => ({
    'continue.cooldown_ms': e.cooldownMs,
  }),
  'phase:changed': (e: PhaseChangedEvent) => {
    const evidence = e.status.evidence ?? {};
    return defined({
      'gate.understanding': attributeValue(e.status.understanding),
      'gate.change': attributeValue(e.status.change),
      'gate.verification': attributeValue(e.status.verification),
      'gate.readiness': attributeValue(e.status.readiness),
      'gate.files_read': attributeValue(evidence.filesRead),
      'gate.search_used': attributeValue(evidence.searchUsed),
      'gate.patches_proposed': attributeValue(evidence.patchesProposed),
      'gate.verify_used': attributeValue(evidence.verifyUsed),
      'gate.no_progress_yet': attributeValue(evidence.noProgressYet),
      'gate.steps_taken': attributeValue(evidence.stepsTaken),
    });
  },
};

/**
 * The span for a guard decision event, or undefined for any other event. Every `checkpoint:*`
 * event maps generically (`checkpoint.<field>` for each field but `type` and `tick`), so new
 * checkpoint transitions are traced without a change here.
 */
export function decisionSpan(event: AgateEvent): DecisionSpan | undefined {
  const type: string = event.type;
  const map =
    DECISIONS[type] ?? (type.startsWith('checkpoint:') ? checkpointAttributes : undefined);
  if (map === undefined) return undefined;
  return { name: `agate.${type.replace(':', '.')}`, attributes: map(event as never) };
}

function gateAttributes(e: GateEvent, state: string): Attributes {
  return defined({
    'gate.name': e.gate,
    'gate.state': state,
    'gate.from': e.from,
    'gate.by': e.by,
    'gate.reason': e.reason,
  });
}

function checkpointAttributes(event: Record<string, unknown>): Attributes {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(event)) {
    if (key === 'type' || key === 'tick') continue;
    const converted = attributeValue(value);
    if (converted !== undefined) attributes[`checkpoint.${snakeCase(key)}`] = converted;
  }
  return attributes;
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
