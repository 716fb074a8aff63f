import { CheckpointGuard } from '../families/checkpoints/checkpoint-guard.js';
import { CommandGuard } from '../families/command-gate/command-guard.js';
import { ContinueGuard } from '../families/continue-gate/continue-guard.js';
import { DefinedGuards } from '../families/defined-guards/defined-guards.js';
import { checkGuardState } from '../families/defined-guards/guard-state.js';
import { EvidenceGuard } from '../families/evidence/evidence-guard.js';
import { GateControl } from '../families/gates-and-knobs/gate-control.js';
import { OutputGuard } from '../families/output/output-guard.js';
import { PhaseGuard } from '../families/phase-gates/phase-guard.js';
import { SubAgentGuard } from '../families/sub-agents/sub-agent-guard.js';
import { ApprovalGuard } from '../families/tool-approvals/approval-guard.js';
import { InvalidOptionError } from '../runtime/tool-limits.js';
import { deepFreeze } from '../state/update.js';
import type { Guard, GuardFactory, GuardHost } from './guard-family.js';
import { GuardSet } from './guard-set.js';
import { FAMILY_SLICES } from './initial-state.js';

/**
 * Every guard family, one line each, in the order the runtime asks them at each point of a
 * tick (see docs/the-tick.md): what can end the run before a model call comes first, and a
 * pending checkpoint's cut-off before the ContinueGate evaluates (or saves) anything.
 */
export const GUARD_FAMILIES = {
  checkpoint: (host) => new CheckpointGuard(host),
  continue: (host) => new ContinueGuard(host),
  gates: (host) => new GateControl(host),
  // Before phase: a check the host runs at an exit attempt is evidence phase gates read.
  commandGates: (host) => new CommandGuard(host),
  evidence: (host) => new EvidenceGuard(host),
  phase: (host) => new PhaseGuard(host),
  output: (host) => new OutputGuard(host),
  subagents: (host) => new SubAgentGuard(host),
  // Guards made with `defineGuard`, after every built-in family, in mount order.
  defined: (host) => new DefinedGuards(host),
  // Last: a call another family (or a defined guard) refuses is refused, never put up for a
  // person's approval.
  approvals: (host) => new ApprovalGuard(host),
} satisfies Record<string, GuardFactory>;

type Families = typeof GUARD_FAMILIES;
export type GuardInstances = { [K in keyof Families]: ReturnType<Families[K]> };

/**
 * One session's guards: each built-in family's instance (for its public API) and the ordered
 * set. `added` (`SessionOptions.guardFamilies`) come after every built-in family but approvals,
 * in the order given: a call one of them refuses is refused, not put up for approval.
 */
export function createGuards(
  host: GuardHost,
  added: readonly GuardFactory[] = [],
): { set: GuardSet; families: GuardInstances } {
  const families = Object.fromEntries(
    Object.entries(GUARD_FAMILIES).map(([name, make]) => [name, make(host)]),
  ) as GuardInstances;
  const { approvals, ...before } = families;
  const yours = added.map(familyOf(host));
  startSlices(host, yours);
  const ordered: Guard[] = [...Object.values(before), ...yours, approvals];
  return { set: new GuardSet(ordered), families };
}

/**
 * The slices the given families declare: each name once and none of the built-in ones; a slice
 * the state already holds (a snapshot's, a seed's) checked against its schema, a missing one
 * started at its initial value.
 */
function startSlices(host: GuardHost, yours: readonly Guard[]): void {
  const taken = new Map<string, string>();
  for (const family of yours) {
    const { slice } = family;
    if (slice === undefined) continue;
    const name: string = slice.name;
    if (typeof name !== 'string' || FAMILY_SLICES.has(name) || taken.has(name)) {
      throw new InvalidOptionError(
        `Guard family "${family.name}" declares the slice state.guards.${String(name)}, which ${
          typeof name !== 'string'
            ? 'is not a name'
            : FAMILY_SLICES.has(name)
              ? "is a built-in family's"
              : `family "${taken.get(name)}" declares too`
        }. Give the slice a name of its own.`,
      );
    }
    taken.set(name, family.name);
    const guards = host.state().guards as Record<string, unknown>;
    if (Object.hasOwn(guards, name)) {
      checkGuardState(name, guards[name], slice.stateSchema, 'restored');
    } else {
      host.assign(slice.name, deepFreeze(slice.initialState()));
    }
  }
}

/** Makes a family given in `SessionOptions.guardFamilies`, checked where it is given. */
function familyOf(host: GuardHost): (make: GuardFactory, at: number) => Guard {
  return (make, at) => {
    if (typeof make !== 'function') {
      throw new InvalidOptionError(
        `guardFamilies[${at}] must be a function (host) => family, got ${typeof make}.`,
      );
    }
    const family = make(host);
    if (
      typeof family !== 'object' ||
      family === null ||
      typeof family.name !== 'string' ||
      family.name === ''
    ) {
      throw new InvalidOptionError(
        `guardFamilies[${at}] must return a family: an object with a name and the hooks it uses (see docs/guards.md#families).`,
      );
    }
    return family;
  };
}
