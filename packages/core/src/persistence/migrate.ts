import { isObjectRecord } from '../ground/json.js';
import { SnapshotError } from './persistence-errors.js';

/**
 * Snapshot layouts, oldest first. Version 1 kept the guard families' fields at the top of the
 * state next to the runtime's (`knobs`, `gates`, `progress`, `checkpoints`, ...); version 2 keeps
 * every guard's state under `state.guards`, the families' beside `defineGuard` guards'; version 3
 * keeps tool-call decisions in their own ledger (`state.guards.approvals.ledger`), no longer in
 * the checkpoint ledger.
 */
export const SNAPSHOT_VERSION = 3;

/**
 * Version 1's top-level family fields and where version 2 keeps them (`[slice, field]`: inside
 * the slice object; `[slice]`: the slice itself). A frozen fact about an old layout, so it names
 * fields here rather than asking the families (which import persistence, not the other way).
 */
const V1_FIELDS: ReadonlyArray<[string, string, string?]> = [
  ['knobs', 'gates', 'knobs'],
  ['gates', 'gates', 'gates'],
  ['progress', 'continue'],
  ['checkpoints', 'checkpoints', 'records'],
  ['checkpointLedger', 'checkpoints', 'ledger'],
  ['todos', 'todos'],
  ['phase', 'phase'],
  ['toolApprovals', 'approvals', 'calls'],
  ['guardRefusals', 'refusals'],
];

/** The slices a version-1 state's fields move into; a version-1 `defineGuard` guard cannot keep one of these names. */
const V2_FAMILY_SLICES = new Set(V1_FIELDS.map(([, slice]) => slice));

/**
 * A stored state of layout `version` brought to the current layout (`SNAPSHOT_VERSION`), as a new
 * object (the input is not changed). Fields a version-1 state did not have yet stay missing: a
 * session fills them in at their initial values. Anything that is not an object is returned as
 * it is, for the caller's own shape check to report. `source`: where the snapshot came from
 * (a file), named in errors.
 */
export function migrateState(state: unknown, version: number, source?: string): unknown {
  if (version === SNAPSHOT_VERSION) return state;
  if (version === 2) return splitToolLedger(state);
  if (version === 1) return splitToolLedger(guardsFromV1(state, source));
  const where = source === undefined ? 'Session snapshot' : `Session snapshot ${source}`;
  throw new SnapshotError(
    `${where} cannot be read: snapshot version ${version} is not supported by this version of ` +
      `@agate/core (expects ${SNAPSHOT_VERSION}); ${
        version > SNAPSHOT_VERSION
          ? 'it was written by a newer @agate/core; upgrade to read it'
          : 'it was written by an older @agate/core and there is no migration for it'
      }.`,
    source === undefined ? undefined : { path: source },
  );
}

/** A version-1 state in the version-2 layout (every guard's state under `state.guards`). */
function guardsFromV1(state: unknown, source: string | undefined): unknown {
  const where = source === undefined ? 'Session snapshot' : `Session snapshot ${source}`;
  const at = source === undefined ? undefined : { path: source };
  if (!isObjectRecord(state)) return state;
  const { guards: v1Guards, ...rest } = state;
  // Not an object: left for the shape check to name.
  if (v1Guards !== undefined && !isObjectRecord(v1Guards)) return state;
  const guards: Record<string, unknown> = {};
  if (v1Guards !== undefined) {
    for (const [name, value] of Object.entries(v1Guards)) {
      if (V2_FAMILY_SLICES.has(name)) {
        throw new SnapshotError(
          `${where} cannot be migrated from version 1: its defineGuard guard "${name}" has the name of a built-in guard family's state (state.guards.${name}) in version ${SNAPSHOT_VERSION}. Load it with the version that wrote it, rename the guard there, and save again.`,
          at,
        );
      }
      guards[name] = value;
    }
  }
  for (const [field, slice, inside] of V1_FIELDS) {
    if (!Object.hasOwn(rest, field)) continue;
    const value = rest[field];
    delete rest[field];
    if (inside === undefined) {
      guards[slice] = value;
    } else {
      const into = (guards[slice] ?? {}) as Record<string, unknown>;
      into[inside] = value;
      guards[slice] = into;
    }
  }
  // A slice made of two version-1 fields gets the one that was missing at its initial value.
  const gates = guards.gates as Record<string, unknown> | undefined;
  if (gates !== undefined) {
    gates.knobs ??= {};
    gates.gates ??= {};
  }
  const checkpoints = guards.checkpoints as Record<string, unknown> | undefined;
  if (checkpoints !== undefined) {
    checkpoints.records ??= {};
    checkpoints.ledger ??= [];
  }
  const inflight = migrateChildren(rest.inflight, (child) => guardsFromV1(child, source));
  return { ...rest, ...(inflight === undefined ? {} : { inflight }), guards };
}

/**
 * The version-2 ledger's tool-call kinds: a frozen fact about that layout (version 2 kept them in
 * the checkpoint ledger, beside the checkpoint's kinds).
 */
const V2_TOOL_KINDS: ReadonlySet<unknown> = new Set([
  'tool-approval-request',
  'tool-approved',
  'tool-denied',
  'tool-executed',
]);

/**
 * A version-2 state in the version-3 layout: the tool-call entries of the checkpoint ledger move,
 * in order, to the tool-call ledger (`state.guards.approvals.ledger`), numbered 1, 2, ... there
 * (`answers` follows). Their signatures cover the numbers of the shared version-2 ledger and its
 * name, and the migration has no key to sign them again, so each keeps what it was signed with
 * in `signedAs` (`{ ledger: 'checkpoints', seq, answers }`), and is verified in that form. The
 * checkpoint entries stay where they are with their numbers (gaps where tool entries were): their
 * signatures cover those numbers. Sub-agents' child states inside the state move the same way.
 */
function splitToolLedger(state: unknown): unknown {
  if (!isObjectRecord(state)) return state;
  const inflight = migrateChildren(state.inflight, splitToolLedger);
  const withChildren = inflight === undefined ? state : { ...state, inflight };
  const guards = state.guards;
  if (!isObjectRecord(guards)) return withChildren;
  const checkpoints = guards.checkpoints;
  const approvals = isObjectRecord(guards.approvals) ? guards.approvals : undefined;
  const shared = isObjectRecord(checkpoints) ? checkpoints.ledger : undefined;
  const toolEntries = Array.isArray(shared)
    ? shared.filter((e) => isObjectRecord(e) && V2_TOOL_KINDS.has(e.kind))
    : [];
  // A version-2 approvals slice has no ledger of its own: anything there is kept as it is.
  const before = Array.isArray(approvals?.ledger) ? (approvals.ledger as unknown[]) : [];
  if (toolEntries.length === 0) {
    return approvals === undefined
      ? withChildren
      : { ...withChildren, guards: { ...guards, approvals: { ...approvals, ledger: before } } };
  }
  const renumbered = new Map<unknown, number>(
    toolEntries.map((e, i) => [(e as Record<string, unknown>).seq, i + 1]),
  );
  const moved = toolEntries.map((e) => {
    const { seq, answers, ...rest } = e as Record<string, unknown>;
    const newAnswers = answers === undefined ? undefined : renumbered.get(answers);
    return {
      ...rest,
      seq: renumbered.get(seq),
      // An `answers` naming no tool entry stays unmatched (absent), as it was.
      ...(newAnswers !== undefined ? { answers: newAnswers } : {}),
      signedAs: { ledger: 'checkpoints', seq, ...(answers !== undefined ? { answers } : {}) },
    };
  });
  return {
    ...withChildren,
    guards: {
      ...guards,
      checkpoints: {
        ...(checkpoints as Record<string, unknown>),
        ledger: (shared as unknown[]).filter((e) => !toolEntries.includes(e)),
      },
      approvals: { calls: [], ...approvals, ledger: [...before, ...moved] },
    },
  };
}

/**
 * A running sub-agent keeps its child's whole state in its parent's in-flight tick
 * (`inflight.progress[callId].state`), written in the same layout: migrated with it.
 */
function migrateChildren(inflight: unknown, migrate: (child: unknown) => unknown): unknown {
  if (!isObjectRecord(inflight) || !isObjectRecord(inflight.progress)) return inflight;
  const progress: Record<string, unknown> = {};
  for (const [callId, saved] of Object.entries(inflight.progress)) {
    progress[callId] =
      isObjectRecord(saved) && saved.kind === 'sub-agent' && isObjectRecord(saved.state)
        ? { ...saved, state: migrate(saved.state) }
        : saved;
  }
  return { ...inflight, progress };
}
