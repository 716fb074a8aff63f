import {
  type AgateEvent,
  CommandGate,
  type RunResult,
  run,
  Shell,
  System,
  Timeline,
  User,
} from '@agate/core';
import type { LanguageModel } from 'ai';

/** The project's own test command: the gate runs it, never the model's word for it. */
export const TEST_COMMAND = 'node --test';

export interface CommandGateAgentProps {
  /** The project (absolute path): where bash runs and what the gate tests. */
  repo: string;
  /** Refused attempts to finish before the run ends `blocked`. Default 5. */
  maxBlocks?: number;
  /** The bubblewrap binary the gate runs its check with (default `bwrap` on the PATH). */
  bwrap?: string;
}

/**
 * A bash-only coding agent that can finish only when the project's tests pass: at every
 * attempt to finish after a change, the host runs `node --test` itself, in the same sandbox as
 * the agent's bash, and refuses with the runner's summary and the failing output.
 */
export function CommandGateAgent(props: CommandGateAgentProps) {
  return (
    <>
      <System>You fix bugs in a JavaScript project with bash. Keep your changes small.</System>
      <User>The tests fail: fix add() in math.js.</User>
      <Timeline />
      {/* Every command runs in a bubblewrap sandbox: writes only in the project, no network. */}
      <Shell name="bash" cwd={props.repo} timeoutMs={30_000} />
      <CommandGate
        name="tests"
        run={TEST_COMMAND}
        cwd={props.repo}
        timeoutMs={60_000}
        {...(props.maxBlocks !== undefined ? { maxBlocks: props.maxBlocks } : {})}
        {...(props.bwrap !== undefined ? { bwrap: props.bwrap } : {})}
      />
    </>
  );
}

export interface CommandGateAgentRun extends CommandGateAgentProps {
  model: LanguageModel;
  onEvent?: (event: AgateEvent) => void;
  maxTicks?: number;
}

export function runCommandGateAgent(options: CommandGateAgentRun): Promise<RunResult> {
  const { model, onEvent, maxTicks, ...props } = options;
  return run(<CommandGateAgent {...props} />, {
    model,
    maxTicks: maxTicks ?? 20,
    ...(onEvent ? { onEvent } : {}),
  });
}
