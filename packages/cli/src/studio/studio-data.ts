import type { Session, SessionState, SessionStore } from '@agate/core';
import { type MaterializedTick, materializeTicks, type TickRecord } from '@agate/core/stores';
import type { SessionView, StudioSession, TickSummary, TickView } from './api-types.js';
import { contextLines } from './context-lines.js';
import { jsonText } from './conversation.js';
import { describeDecision } from './decision-text.js';
import { diffLines } from './line-diff.js';
import { sessionRow, sessionView } from './session-view.js';

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
    if (this.live) out.push(sessionRow(this.live.state, true));
    for (const summary of summaries) {
      if (summary.id === this.live?.id) continue;
      try {
        const snapshot = await this.store.load(summary.id);
        if (snapshot === undefined) continue;
        out.push({
          ...sessionRow(snapshot.state as SessionState, false),
          savedAt: summary.savedAt,
        });
      } catch {
        // A damaged file: `agate show <id>` says what is wrong with it.
      }
    }
    return out;
  }

  /** One session whole (its conversation, pending decisions, ledger); undefined when unknown. */
  async session(sessionId: string): Promise<SessionView | undefined> {
    if (this.isLive(sessionId)) return sessionView(this.live!.state, true);
    const snapshot = await this.store.load(sessionId);
    if (snapshot === undefined) return undefined;
    return { ...sessionView(snapshot.state as SessionState, false), savedAt: snapshot.savedAt };
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

  async detail(sessionId: string, tick: number): Promise<TickView | undefined> {
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
    return {
      ...tickView(current.record, lines),
      ...(previous === undefined
        ? {}
        : { diff: diffLines(contextLines(previous), lines), previousTick: previous.record.tick }),
    };
  }
}

/** A tick's record as the page shows it: inputs and outputs as text, decisions as sentences. */
function tickView(record: TickRecord, lines: string[]): TickView {
  return {
    tick: record.tick,
    startedAt: record.startedAt,
    durationMs: record.durationMs,
    lines,
    reply: record.reply,
    calls: record.calls.map((call) => ({
      toolName: call.toolName,
      input: jsonText(call.input),
      ...(call.output !== undefined
        ? { output: typeof call.output === 'string' ? call.output : jsonText(call.output) }
        : {}),
      isError: call.isError === true,
      ...(call.refusedBy !== undefined ? { refusedBy: call.refusedBy } : {}),
    })),
    gates: record.gates,
    knobs: record.knobs,
    decisions: record.decisions.map(describeDecision),
    ...(record.pruned !== undefined ? { pruned: record.pruned } : {}),
  };
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
