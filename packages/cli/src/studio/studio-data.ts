import {
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
}

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

  async ticks(sessionId: string): Promise<TickRecord[]> {
    if (this.live !== undefined && sessionId === this.live.id) return this.live.ticks();
    return (await this.store.loadTicks?.(sessionId)) ?? [];
  }

  async summaries(sessionId: string): Promise<TickSummary[]> {
    return (await this.ticks(sessionId)).map(summarize);
  }

  async detail(sessionId: string, tick: number): Promise<TickDetail | undefined> {
    const records = await this.ticks(sessionId);
    const index = records.findIndex((r) => r.tick === tick);
    if (index < 0) return undefined;
    // Rebuilt only up to the asked tick (the deltas before it), never the whole log.
    const whole = materializeTicks(records.slice(0, index + 1));
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
    pending: Object.entries(state.checkpoints ?? {})
      .filter(([id, record]) => record.state === 'pending' && !decided(state, id))
      .map(([id, record]) => ({
        id,
        ...(record.reason !== undefined ? { reason: record.reason } : {}),
      })),
  };
}

/** A decision recorded (by the CLI or this page) but not yet taken by a run. */
function decided(state: SessionState, id: string): boolean {
  const last = (state.checkpointLedger ?? []).filter((e) => e.checkpoint === id).at(-1);
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
