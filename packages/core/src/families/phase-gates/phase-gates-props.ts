import { InvalidElementError } from '../../components/render-errors.js';
import type { PhaseGateOptions } from './phase-types.js';

/**
 * Props of `<PhaseGates>`: warn about, or refuse, finishing before the work went through its
 * phases.
 */
export interface PhaseGatesProps extends PhaseGateOptions {
  /** `warn`: warnings only (Path A). `block`: warnings, and finishing is refused until ready (Path B). */
  mode: 'warn' | 'block';
  /**
   * The directory the agent works in. With it, the verification phase is judged on the work
   * product: the workspace is fingerprinted at each verification that ran, and at an exit
   * attempt only files that existed at the start or exist now and changed since count.
   */
  workspace?: string;
  /** Block mode: refused exit attempts before the run ends `blocked`. Default 5 (as gates). */
  maxBlocks?: number;
}

const VERIFICATION: readonly unknown[] = [
  'ran',
  'passed',
  'project-tests-once',
  'project-tests',
  'any',
];

const COUNTS = ['maxNoProgressSteps', 'warnAfter', 'warnEvery', 'stallAfter', 'maxBlocks'] as const;

/** Checked at render, so a bad option fails where it is written and says what is allowed. */
export function checkPhaseGatesProps(props: PhaseGatesProps): void {
  if (props.mode !== 'warn' && props.mode !== 'block') {
    throw new InvalidElementError(
      `<PhaseGates mode=${JSON.stringify(props.mode)}> is not a mode. Use mode="warn" (warnings only) or mode="block" (refuse to finish until ready).`,
    );
  }
  for (const key of COUNTS) {
    const value = props[key];
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
      throw new InvalidElementError(
        `<PhaseGates ${key}={${String(value)}}> must be a whole number of at least 1.`,
      );
    }
  }
  if (props.verification !== undefined && !VERIFICATION.includes(props.verification)) {
    throw new InvalidElementError(
      `<PhaseGates verification=${JSON.stringify(props.verification)}>: use "ran" (default: a check ran after the last change), "passed" (and it did not fail), "project-tests-once" (and the project's own tests ran at least once in the run), "project-tests" (and the project's own tests ran and did not fail) or "any" (a check ran at any time).`,
    );
  }
  if (
    props.testCommands !== undefined &&
    !(
      Array.isArray(props.testCommands) &&
      props.testCommands.every(
        (c: unknown) => (typeof c === 'string' && c.trim() !== '') || c instanceof RegExp,
      )
    )
  ) {
    throw new InvalidElementError(
      "<PhaseGates testCommands> must be a list of commands (strings, or RegExps tested against each simple command), e.g. testCommands={['make check']}.",
    );
  }
  if (
    props.changes !== undefined &&
    props.changes !== 'work-product' &&
    props.changes !== 'every-file-operation'
  ) {
    throw new InvalidElementError(
      `<PhaseGates changes=${JSON.stringify(props.changes)}>: use "work-product" (default) or "every-file-operation".`,
    );
  }
  if (
    props.workspace !== undefined &&
    (typeof props.workspace !== 'string' || props.workspace === '')
  ) {
    throw new InvalidElementError('<PhaseGates workspace> must be a directory path.');
  }
}
