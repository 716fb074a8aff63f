import {
  type MaterializedTick,
  materializeTicks,
  type Session,
  type SessionState,
  type SessionStore,
  type TickRecord,
} from '@agate/core';
import { contextLines } from './context-lines.js';
import { type DiffLine, diffLines } from './line-diff.js';

export interface StudioSession {
  id: string;
  status: string;
  ticks: number;
  savedAt?: string;
  live: boolean;
  /** Checkpoints waiting for a decision, with why. */
  pending: Array<{ id: string; reason?: string }>;
  /** Tool calls held for a person's approval (`needsApproval`), with what the model asked. */
  pendingCalls: StudioPendingCall[];
}

export interface StudioPendingCall {
  /** The tool call's id. */
  id: string;
  toolName: string;
  /** The model's arguments as JSON, cut at `INPUT_PREVIEW_CHARS` (untrusted: shown as text). */
  input: string;
  tick: number;
}

/** Enough of a call's input to decide on; the whole input stays in the store. */
export const INPUT_PREVIEW_CHARS = 2_000;

/** A row of the tick list: enough to scan 1,000 ticks without loading each one. */
export interface TickSummary {
  tick: number;
  durationMs: number;
  calls: string[];
  reply: string;
  decisions: number;
  refused: boolean;
  tokens?: number;
  pruned: boolean;
}

export interface TickDetail {
  record: TickRecord;
  /** The request as the model saw it, as lines. */
  lines: string[];
  /** Against the previous kept tick (absent for the first). */
  diff?: DiffLine[];
  previousTick?: number;
}

const MAX_SESSIONS = 500;
const REPLY_PREVIEW = 120;

/** Where the studio reads: the store, and the live session of `agate run --studio`. */
export class StudioData {
  /**
   * The tick log of the session whose list the page showed last, read once by `summaries()`
   * (the page lists a session's ticks before it opens one). A tick's detail is then built from
   * what the list was made of, without reading and parsing the whole log again per click.
   */
  private listed:
    | { sessionId: string; records: TickRecord[]; whole?: MaterializedTick[] }
    | undefined;

  /** `live`: the running session of `agate run --studio`; once it ends, the store has it. */
  constructor(
    private readonly store: SessionStore,
    private readonly liveSession: () => Session | undefined = () => undefined,
  ) {}

  private get live(): Session | undefined {
    return this.liveSession();
  }

  async sessions(): Promise<StudioSession[]> {
    const out: StudioSession[] = [];
    const summaries = (await this.store.list()).slice(-MAX_SESSIONS).reverse();
    if (this.live) out.push(describe(this.live.state, true));
    for (const summary of summaries) {
      if (summary.id === this.live?.id) continue;
      try {
        const snapshot = await this.store.load(summary.id);
        if (snapshot === undefined) continue;
        out.push({ ...describe(snapshot.state as SessionState, false), savedAt: summary.savedAt });
      } catch {
        // A damaged file: `agate show <id>` says what is wrong with it.
      }
    }
    return out;
  }

  private isLive(sessionId: string): boolean {
    return this.live !== undefined && sessionId === this.live.id;
  }

  async ticks(sessionId: string): Promise<TickRecord[]> {
    if (this.live !== undefined && sessionId === this.live.id) return this.live.ticks();
    return (await this.store.loadTicks?.(sessionId)) ?? [];
  }

  async summaries(sessionId: string): Promise<TickSummary[]> {
    const records = await this.ticks(sessionId);
    // The page opens a tick of the list it shows next: the deltas are replayed now, with the
    // list, so that opening a tick only lays out and diffs two requests.
    this.listed = this.isLive(sessionId)
      ? { sessionId, records }
      : { sessionId, records, whole: materializeTicks(records) };
    return records.map(summarize);
  }

  /** Forgets what `summaries()` read (a decision or a tick changed the session). */
  changed(sessionId: string): void {
    if (this.listed?.sessionId === sessionId) this.listed = undefined;
  }

  async detail(sessionId: string, tick: number): Promise<TickDetail | undefined> {
    const listed =
      this.listed?.sessionId === sessionId && !this.isLive(sessionId) ? this.listed : undefined;
    const records = listed?.records ?? (await this.ticks(sessionId));
    const index = records.findIndex((r) => r.tick === tick);
    if (index < 0) return undefined;
    // Materialized once per listing (the deltas replayed in one pass); a live log is rebuilt
    // only up to the asked tick, since it grows while the page looks at it.
    let whole: MaterializedTick[];
    if (listed !== undefined) {
      listed.whole ??= materializeTicks(listed.records);
      whole = listed.whole;
    } else {
      whole = materializeTicks(records.slice(0, index + 1));
    }
    const current = whole[index];
    if (current === undefined) return undefined;
    const lines = contextLines(current);
    const previous = whole[index - 1];
    if (previous === undefined) return { record: current.record, lines };
    return {
      record: current.record,
      lines,
      diff: diffLines(contextLines(previous), lines),
      previousTick: previous.record.tick,
    };
  }
}

function describe(state: SessionState, live: boolean): StudioSession {
  return {
    id: state.id,
    status: state.status,
    ticks: state.tick,
    live,
    pending: Object.entries(state.guards.checkpoints?.records ?? {})
      .filter(([id, record]) => record.state === 'pending' && !decided(state, id))
      .map(([id, record]) => ({
        id,
        ...(record.reason !== undefined ? { reason: record.reason } : {}),
      })),
    pendingCalls: (state.guards.approvals?.calls ?? [])
      .filter((record) => record.state === 'pending')
      .map((record) => ({
        id: record.id,
        toolName: record.toolName,
        input: preview(record.input),
        tick: record.tick,
      })),
  };
}

function preview(input: unknown): string {
  // The input is the state's JSON (loaded from the store, or a live session's plain state).
  const json = JSON.stringify(input) ?? 'undefined';
  return json.length > INPUT_PREVIEW_CHARS
    ? `${json.slice(0, INPUT_PREVIEW_CHARS)}… (${json.length} characters)`
    : json;
}

/** A decision recorded (by the CLI or this page) but not yet taken by a run. */
function decided(state: SessionState, id: string): boolean {
  const last = (state.guards.checkpoints?.ledger ?? []).filter((e) => e.checkpoint === id).at(-1);
  return last?.kind === 'approved' || last?.kind === 'rejected';
}

function summarize(record: TickRecord): TickSummary {
  const reply = record.reply.text.replace(/\s+/g, ' ');
  return {
    tick: record.tick,
    durationMs: record.durationMs,
    calls: record.calls.map((c) => c.toolName),
    reply: reply.length > REPLY_PREVIEW ? `${reply.slice(0, REPLY_PREVIEW)}…` : reply,
    decisions: record.decisions.length,
    refused: record.decisions.some((d) => d.type === 'exit:blocked' || d.type === 'tool:refused'),
    ...(record.reply.usage ? { tokens: record.reply.usage.totalTokens } : {}),
    pruned: record.pruned !== undefined,
  };
}
