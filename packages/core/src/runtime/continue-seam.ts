import type { CompiledContext } from '../renderer/compiled-context.js';
import type { RunStatus, SessionState } from '../state/session-state.js';
import type { AgateEvent } from './events.js';
import type { Session } from './session.js';
import type { TickResult } from './tick-result.js';

/** What runs before each model call may decide: go on, or end the run now. */
export interface ContinueOutcome {
  end?: { status: RunStatus; reason: string };
}

export interface BeforeModelCall {
  session: Session;
  context: CompiledContext;
  tick: number;
  signal: AbortSignal;
  emit: (event: AgateEvent) => void;
}

/**
 * Seams the session exposes to the layers above it (ContinueGate, persistence) so the tick
 * loop does not import them.
 */
export interface ContinueHooks {
  beforeModelCall?: (input: BeforeModelCall) => Promise<ContinueOutcome | undefined>;
  isRework?: (result: TickResult, state: SessionState) => boolean;
  restoreState?: () => SessionState;
}
