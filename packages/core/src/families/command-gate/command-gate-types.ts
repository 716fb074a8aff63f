/** A check the host ran itself, as the families that read evidence see it. */
export interface HostCheck {
  /** The tick whose exit attempt ran it. */
  tick: number;
  /** The `<CommandGate>` that ran it. */
  gate: string;
  /** The command line that ran. */
  command: string;
  /** `null`: killed (a timeout) or it never started. */
  exitCode: number | null;
  /** It was killed at its time limit. */
  timedOut: boolean;
  /** False: it never started (the sandbox could not start, the command was not found). */
  ran: boolean;
  /** It exited 0 within its time limit. */
  passed: boolean;
  /** The output's tail (stdout then stderr), bounded. */
  output: string;
}

/** What a gate's last run found. */
export interface CommandGateRun {
  tick: number;
  passed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  /** The workspace as the run left it (`workspaceDigest`). */
  digest: string;
  /** The test runner's summary line (`=== 1 failed, 2 passed in 0.1s ===`). */
  summary?: string;
  /** Why the check did not run (`command not found`, the sandbox cannot start). */
  notRun?: string;
  /** The output's tail, bounded (what a refusal shows). */
  tail: string;
}

export interface CommandGateRecord {
  /** Exit attempts refused since the check last passed. */
  blocks: number;
  /** Times the host ran the check. */
  runs: number;
  /** The workspace at the last passing run: while it is unchanged the gate stays clear. */
  passedDigest?: string;
  lastRun?: CommandGateRun;
}

/** `state.guards.commandGates`. */
export interface CommandGatesState {
  gates: Record<string, CommandGateRecord>;
  /** The host's recent checks, newest last (at most 20). */
  checks: HostCheck[];
}

/** Where a `<CommandGate>` stands: never run, its last run passed (and nothing changed), or failed. */
export type CommandGateStatus = 'not-run' | 'passed' | 'failed';
