import type { DecisionLine } from './api-types.js';

/**
 * Guard decisions and ledger entries as sentences a person reads. Both come from a store (a
 * tick log, a session file) and may be edited or from another version: every field is checked
 * here, and an unknown or damaged one still gives a sentence (the JSON is shown beside it).
 */

type Fields = { readonly [key: string]: unknown };

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): string => (typeof value === 'number' ? String(value) : '?');
const list = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
const quoted = (value: unknown): string => JSON.stringify(str(value) ?? '');
/** ` — text` when there is text, else nothing. */
const tail = (value: unknown): string => {
  const text = str(value)?.trim();
  return text ? ` — ${text}` : '';
};
const json = (value: unknown): string => JSON.stringify(value) ?? 'undefined';
const who = (value: unknown): string => str(value) ?? 'someone';

const EVENT_SENTENCES: { readonly [type: string]: (e: Fields) => string } = {
  'exit:attempt': () => 'The model tried to finish.',
  'exit:blocked': (e) => {
    const gates = list(e.gates);
    const reasons = list(e.reasons).join(' ');
    return (
      `Finishing was refused by ${gates.length > 0 ? gates.map((g) => `gate "${g}"`).join(', ') : `gate "${str(e.gate) ?? '?'}"`}` +
      `${reasons ? `: ${reasons}` : '.'}${e.final === true ? ' The run ended blocked.' : ' The run went on.'}`
    );
  },
  'tool:refused': (e) =>
    `${who(e.by)} refused the call to ${str(e.toolName) ?? '?'} (${str(e.toolCallId) ?? '?'}) before it ran${tail(e.message)}`,
  'tool:held': (e) =>
    `${who(e.by)} held the call to ${str(e.toolName) ?? '?'} (${str(e.toolCallId) ?? '?'}) for a person's approval${tail(e.reason)}`,
  'tool:approved': (e) =>
    `${who(e.by)} approved the held call ${str(e.toolCallId) ?? '?'}${tail(e.reason)}`,
  'tool:denied': (e) =>
    `${who(e.by)} denied the held call ${str(e.toolCallId) ?? '?'}${tail(e.reason)}`,
  'checkpoint:submitted': (e) =>
    `The model submitted checkpoint ${str(e.id) ?? '?'}: ${quoted(e.summary)}`,
  'checkpoint:pending': (e) =>
    `Checkpoint ${str(e.id) ?? '?'} waits for a supervisor (${str(e.cause) ?? 'unknown cause'})${tail(e.reason)}`,
  'checkpoint:approved': (e) =>
    `${who(e.by)} approved checkpoint ${str(e.id) ?? '?'}${tail(e.note)}`,
  'checkpoint:rejected': (e) =>
    `${who(e.by)} rejected checkpoint ${str(e.id) ?? '?'}${tail(e.feedback)}`,
  'checkpoint:saved': (e) =>
    `The ContinueGate saved restore point ${str(e.snapshotId) ?? '?'} at step ${num(e.step)}.`,
  'continue:evaluated': (e) => {
    const evaluation = (
      typeof e.evaluation === 'object' && e.evaluation !== null ? e.evaluation : {}
    ) as Fields;
    const reasons = list(evaluation.reasons).join(' ');
    return `The ContinueGate decided "${str(evaluation.decision) ?? '?'}"${reasons ? `: ${reasons}` : '.'}`;
  },
  'continue:throttled': (e) => `The ContinueGate waited ${num(e.cooldownMs)} ms (cooldown).`,
  'phase:changed': (e) => {
    const status = (typeof e.status === 'object' && e.status !== null ? e.status : {}) as Fields;
    const phases = ['understanding', 'change', 'verification', 'readiness'];
    const done = phases.filter((p) => status[p] === true);
    return `Phases reached: ${done.length > 0 ? done.join(', ') : 'none yet'}.`;
  },
  'phase:warning': (e) => `Phase warning (${str(e.kind) ?? '?'})${tail(e.text)}`,
  'todos:changed': (e) => {
    const todos = Array.isArray(e.todos) ? (e.todos as Fields[]) : [];
    const completed = todos.filter((t) => t?.status === 'completed').length;
    return `The todo list changed: ${todos.length} item${todos.length === 1 ? '' : 's'}, ${completed} completed.`;
  },
  'step:completed': (e) => {
    const evidence = (
      typeof e.evidence === 'object' && e.evidence !== null ? e.evidence : {}
    ) as Fields;
    return `Step ${num(e.step)} was signed off ${evidence.verified === true ? 'with checked evidence' : 'on the model’s word only'}: ${quoted(e.content)}`;
  },
  'knob:changed': (e) =>
    `The ${str(e.by) ?? '?'} set knob "${str(e.knob) ?? '?'}" to ${json(e.value)} (it was ${json(e.previous)}).`,
  'gate:activated': (e) => gateSentence(e, 'activated'),
  'gate:deferred': (e) => gateSentence(e, 'deferred'),
  'gate:cleared': (e) => gateSentence(e, 'cleared'),
  'timeline:trimmed': (e) =>
    `The timeline was trimmed: its ${num(e.dropped)} oldest messages were dropped.`,
  'context:pruned': (e) =>
    `The request was cut to its budget of ${num(e.maxTokens)} tokens (${num(e.tokensBefore)} → ${num(e.tokensAfter)}): ` +
    `${num(e.droppedMessages)} messages and ${num(e.droppedElements)} elements left out.`,
  warning: (e) => `Warning (${str(e.code) ?? '?'})${tail(e.message)}`,
  'run:end': (e) => `The run ended ${str(e.status) ?? '?'}${tail(e.reason)}`,
};

function gateSentence(e: Fields, verb: string): string {
  return `The ${str(e.by) ?? '?'} ${verb} gate "${str(e.gate) ?? '?'}" (it was ${str(e.from) ?? '?'})${tail(e.reason)}`;
}

/** A guard decision (an event of a tick) as a sentence, with its JSON. */
export function describeDecision(event: unknown): DecisionLine {
  const fields = (typeof event === 'object' && event !== null ? event : {}) as Fields;
  const type = str(fields.type) ?? '(no type)';
  const sentence = Object.hasOwn(EVENT_SENTENCES, type)
    ? EVENT_SENTENCES[type]!(fields)
    : `${type}: ${otherFields(fields)}`;
  return { sentence: endWithStop(sentence), json: JSON.stringify(event, null, 2) ?? 'undefined' };
}

const LEDGER_SENTENCES: { readonly [kind: string]: (e: Fields) => string } = {
  submitted: (e) =>
    `The model submitted checkpoint ${str(e.checkpoint) ?? '?'}: ${quoted(e.summary)}`,
  budget: (e) => wentPending(e, 'its tick budget ran out'),
  file: (e) => wentPending(e, 'its trigger file was written'),
  finish: (e) => wentPending(e, 'the model tried to finish without submitting it'),
  approved: (e) => `${who(e.by)} approved checkpoint ${str(e.checkpoint) ?? '?'}${tail(e.note)}`,
  rejected: (e) =>
    `${who(e.by)} rejected checkpoint ${str(e.checkpoint) ?? '?'}${tail(e.feedback)}`,
  'tool-approval-request': (e) =>
    `The call ${str(e.checkpoint) ?? '?'} to ${str(e.toolName) ?? '?'} was held for approval` +
    `${str(e.inputHash) ? ` (input sha256 ${str(e.inputHash)})` : ''}${tail(e.reason)}`,
  'tool-approved': (e) =>
    `${who(e.by)} approved the call ${str(e.checkpoint) ?? '?'}${tail(e.reason)}`,
  'tool-denied': (e) => `${who(e.by)} denied the call ${str(e.checkpoint) ?? '?'}${tail(e.reason)}`,
};

/** A trip the runtime recorded: its own reason when it gave one, else what the kind means. */
function wentPending(e: Fields, meaning: string): string {
  const reason = str(e.reason)?.trim();
  return `Checkpoint ${str(e.checkpoint) ?? '?'} went pending: ${reason ? reason : meaning}`;
}

/** A checkpoint-ledger entry as a sentence (who asked or decided, at which tick, signed or not). */
export function describeLedgerEntry(entry: unknown): DecisionLine {
  const fields = (typeof entry === 'object' && entry !== null ? entry : {}) as Fields;
  const kind = str(fields.kind) ?? '(no kind)';
  const said = Object.hasOwn(LEDGER_SENTENCES, kind)
    ? LEDGER_SENTENCES[kind]!(fields)
    : `${kind}: ${otherFields(fields)}`;
  const signed = str(fields.signature) !== undefined ? 'signed' : 'unsigned';
  return {
    sentence: `#${num(fields.seq)}, tick ${num(fields.tick)}: ${endWithStop(said)} (${signed})`,
    json: JSON.stringify(entry, null, 2) ?? 'undefined',
  };
}

/** What an event of a family the studio does not know says, in brief. */
function otherFields(fields: Fields): string {
  const shown = Object.entries(fields).filter(
    ([key]) => !['type', 'kind', 'tick', 'seq', 'path', 'signature'].includes(key),
  );
  if (shown.length === 0) return '(no details)';
  return shown.map(([key, value]) => `${key} ${short(value)}`).join(', ');
}

function short(value: unknown): string {
  const text = typeof value === 'string' ? value : json(value);
  return text.length > 80 ? `${text.slice(0, 80)}… (see the JSON)` : text;
}

function endWithStop(sentence: string): string {
  return /[.!?)"”]$/.test(sentence) ? sentence : `${sentence}.`;
}
