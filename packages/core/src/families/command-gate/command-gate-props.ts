import { isAbsolute } from 'node:path';
import { InvalidElementError } from '../../components/render-errors.js';
import type { SandboxOptions } from '../../shell/policy.js';

/**
 * Props of `<CommandGate>`: a check the host runs itself, which must pass before the run may
 * finish.
 */
export interface CommandGateProps {
  /** The gate's name, in refusals, events and `RunResult.commandGates`. */
  name: string;
  /** The check, a shell command line the host runs itself (`pytest -q`, `node --test`). */
  run: string;
  /** Where it runs, and the workspace whose changes make it run again. Default `process.cwd()`. */
  cwd?: string;
  /** What the check may touch, as `<Shell sandbox>`; `false` runs it on the host, unsandboxed. */
  sandbox?: SandboxOptions | false;
  /** A check running longer is killed with everything it started, and fails. Default 120 s. */
  timeoutMs?: number;
  /** Characters kept of the check's stdout and of its stderr each (as `<Shell>`). Default 30,000. */
  maxOutputChars?: number;
  /** Characters of the output's tail a refusal and the timeline show. Default 2,000. */
  tailChars?: number;
  /** Exit attempts the gate refuses before the run ends `blocked`. Default 5 (as `<Gate>`). */
  maxBlocks?: number;
  /** Variables to pass in (as `<Shell env>`); of the host's own only the safe few pass. */
  env?: Readonly<Record<string, string>>;
  /** One line: what the check guards. Default: `` `<run>` passes ``. */
  description?: string;
  /** The bubblewrap binary. Default `bwrap` on the PATH. */
  bwrap?: string;
}

export const DEFAULT_TAIL_CHARS = 2_000;
const MAX_TAIL_CHARS = 20_000;
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** Checked at render, so a bad prop fails where it is written and says what is allowed. */
export function checkCommandGateProps(props: CommandGateProps): void {
  const at = `<CommandGate name=${JSON.stringify(props.name)}>`;
  if (typeof props.name !== 'string' || !NAME.test(props.name)) {
    throw new InvalidElementError(
      `${at}: the name must be 1 to 64 letters, digits, "_", "-" or "." (it is shown in refusals and events).`,
    );
  }
  if (typeof props.run !== 'string' || props.run.trim() === '' || props.run.length > 4_000) {
    throw new InvalidElementError(
      `${at}: run must be the command line of the check (1 to 4,000 characters), such as run="pytest -q".`,
    );
  }
  if (props.cwd !== undefined && (typeof props.cwd !== 'string' || !isAbsolute(props.cwd))) {
    throw new InvalidElementError(`${at}: cwd must be an absolute path.`);
  }
  for (const [key, max] of [
    ['timeoutMs', 24 * 3_600_000],
    ['maxOutputChars', 10_000_000],
    ['tailChars', MAX_TAIL_CHARS],
    ['maxBlocks', 1_000],
  ] as const) {
    const value = props[key];
    if (value !== undefined && !(Number.isInteger(value) && value >= 1 && value <= max)) {
      throw new InvalidElementError(
        `${at} ${key}={${String(value)}} must be a whole number from 1 to ${max.toLocaleString('en-US')}.`,
      );
    }
  }
  if (props.description !== undefined && typeof props.description !== 'string') {
    throw new InvalidElementError(`${at}: description must be a string.`);
  }
}
