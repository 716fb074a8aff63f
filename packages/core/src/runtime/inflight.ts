import { AgateError, nameErrorClass } from '../ground/agate-error.js';
import type { JsonValue } from '../ground/json.js';
import type { RunStatus, SessionState } from '../state/session-state.js';
import type { TickToolResult } from '../state/tick-result.js';
import type { ModelTurn } from './model-call.js';

/**
 * A tick whose tool calls did not all finish, kept in the session state so that it goes on
 * (in this process or another) instead of starting over: the model's response is not asked
 * again, finished calls are not run again, and a durable call (a sub-agent) continues from the
 * progress it saved. Written only once a call saves progress or suspends; an ordinary tick never
 * has one (an abort then rolls the tick back as before).
 */
export interface InflightTick {
  /** The tick being run (1-based). */
  tick: number;
  /** The model's response, as it was. */
  response: ModelTurn;
  /** Results of the calls that finished, by call id. */
  results: Record<string, TickToolResult>;
  /** What unfinished calls saved (`ToolExecuteContext.saveProgress`), by call id. */
  progress: Record<string, JsonValue>;
}

/**
 * Thrown by a tool's `execute` to say the run must stop and wait with this call unfinished (a
 * sub-agent whose checkpoint awaits approval): the tick is not committed, the run ends with
 * `status`, and the next `run()` calls the tool again with the progress it saved.
 */
export class ToolSuspended extends AgateError {
  static {
    nameErrorClass(ToolSuspended, 'ToolSuspended');
  }
  constructor(
    readonly status: Extract<RunStatus, 'awaiting-approval' | 'paused'>,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** The in-flight record of `tick`, when the state holds one for it. */
export function inflightOf(state: SessionState, tick: number): InflightTick | undefined {
  const inflight = state.inflight;
  return inflight !== undefined && inflight.tick === tick ? inflight : undefined;
}

/**
 * Keeps a tick's in-flight record up to date: nothing is written until a call saves progress
 * (or suspends); from then on every finished result is written too, so a snapshot taken at any
 * moment says exactly which calls are done.
 */
export class InflightRecorder {
  private written: boolean;
  private closed = false;
  private readonly results: Record<string, TickToolResult>;
  private readonly progress: Record<string, JsonValue>;

  constructor(
    private readonly tick: number,
    private readonly response: ModelTurn,
    private readonly update: (recipe: (draft: SessionState) => void) => void,
    resumed: InflightTick | undefined,
  ) {
    this.written = resumed !== undefined;
    this.results = { ...resumed?.results };
    this.progress = { ...resumed?.progress };
  }

  /** A result finished earlier (a resumed tick), if any. */
  finished(toolCallId: string): TickToolResult | undefined {
    return this.results[toolCallId];
  }

  saved(toolCallId: string): JsonValue | undefined {
    return this.progress[toolCallId];
  }

  saveProgress(toolCallId: string, progress: JsonValue): void {
    // A call whose result is in (a timeout answered it), or a tick already committed, ignores
    // what its work still saves on the way out.
    if (this.closed || this.results[toolCallId] !== undefined) return;
    this.progress[toolCallId] = progress;
    this.write((inflight) => {
      inflight.progress[toolCallId] = progress;
    });
  }

  recordResult(result: TickToolResult): void {
    this.results[result.toolCallId] = result;
    delete this.progress[result.toolCallId];
    if (!this.written) return;
    this.write((inflight) => {
      inflight.results[result.toolCallId] = result;
      delete inflight.progress[result.toolCallId];
    });
  }

  /** Makes sure the record is in the state (a call suspended). */
  keep(): void {
    this.write(() => {});
    this.closed = true;
  }

  /** The tick is committed: the record goes. */
  clear(): void {
    this.closed = true;
    if (!this.written) return;
    this.written = false;
    this.update((draft) => {
      delete draft.inflight;
    });
  }

  private write(change: (inflight: InflightTick) => void): void {
    const first = !this.written;
    this.written = true;
    this.update((draft) => {
      if (first || draft.inflight?.tick !== this.tick) {
        draft.inflight = {
          tick: this.tick,
          response: this.response,
          results: { ...this.results },
          progress: { ...this.progress },
        };
        return;
      }
      change(draft.inflight);
    });
  }
}

declare module '../state/session-state.js' {
  interface SessionState {
    /**
     * A tick whose tool calls were interrupted after some saved progress (a running sub-agent):
     * the next run continues it instead of calling the model again. Absent otherwise. Declared
     * here, beside the record, so that the state's module imports nothing of the tick loop.
     */
    inflight?: InflightTick;
  }
}
