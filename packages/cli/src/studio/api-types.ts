/**
 * What the studio's API answers, shared by the server (which builds it) and the page (which
 * shows it). Types only: the page's bundle takes nothing from the server's modules.
 */

/** A row of the session list. */
export interface StudioSession {
  id: string;
  status: string;
  ticks: number;
  savedAt?: string;
  live: boolean;
  /** Checkpoints waiting for a decision, with why. */
  pending: Array<{ id: string; reason?: string }>;
  /** Tool calls held for a person's approval (`needsApproval`); their inputs are in `SessionView`. */
  pendingCalls: Array<{ id: string; toolName: string; tick: number }>;
}

/** A tool call held for approval, with everything a person needs to decide on it. */
export interface StudioPendingCall {
  /** The tool call's id. */
  id: string;
  toolName: string;
  tick: number;
  /** The model's arguments, whole, as indented JSON (untrusted: shown as text, never cut). */
  input: string;
  /**
   * The digest the approval ledger signs a decision over: its request entry's `inputHash`
   * (sha256 of the tool name and the canonical input). Absent when the ledger has no request.
   */
  digest?: string;
  /** Why the tool asked for approval (its `needsApproval` reason). */
  reason?: string;
}

/** One part of a stored message, as the page shows it (all text: nothing is markup). */
export type ConversationPart =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'tool-call'; toolName: string; callId: string; input: string }
  | { kind: 'tool-result'; toolName: string; callId: string; output: string; isError: boolean }
  | { kind: 'other'; type: string };

export interface ConversationMessage {
  role: string;
  parts: ConversationPart[];
}

/** A guard decision or a ledger entry as a sentence, with the JSON it was made from. */
export interface DecisionLine {
  sentence: string;
  /** The event or entry, as indented JSON (shown behind a toggle). */
  json: string;
}

/** A session as its store (or the live run) holds it: what `GET /api/sessions/<id>` answers. */
export interface SessionView {
  id: string;
  status: string;
  reason?: string;
  /** Completed ticks over the session's life. */
  ticks: number;
  live: boolean;
  savedAt?: string;
  usage?: { inputTokens: number; outputTokens: number; totalTokens: number };
  pending: Array<{ id: string; reason?: string }>;
  pendingCalls: StudioPendingCall[];
  /** The stored conversation (the timeline), oldest first. */
  messages: ConversationMessage[];
  /** The checkpoint and tool-call ledgers, in time order: who asked, who decided, signed or not. */
  ledger: DecisionLine[];
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

/** One line of a diff: kept, added (only in the new text) or removed (only in the old). */
export interface DiffLine {
  op: 'same' | 'add' | 'remove';
  text: string;
}

/** A tool call of a tick, as the page shows it. */
export interface TickCallView {
  toolName: string;
  input: string;
  output?: string;
  isError: boolean;
  refusedBy?: string;
}

/** One tick: what `GET /api/sessions/<id>/ticks/<n>` answers. */
export interface TickView {
  tick: number;
  startedAt: string;
  durationMs: number;
  /** The request as the model saw it, as lines. */
  lines: string[];
  /** Against the previous kept tick (absent for the first). */
  diff?: DiffLine[];
  previousTick?: number;
  reply: { text: string; reasoning?: string; finishReason?: string; usage?: unknown };
  calls: TickCallView[];
  gates: unknown;
  knobs: unknown;
  /** Every guard decision of the tick, as a sentence (the event's JSON behind a toggle). */
  decisions: DecisionLine[];
  pruned?: unknown;
}

/** `GET /api/chat` with `agate studio --agent`: whom the chat pane talks to. */
export interface ChatInfo {
  /** The agent file as given on the command line. */
  agent: string;
  /** The model, as `agate run` describes it. */
  model: string;
  maxMessageChars: number;
  /** The session whose run is in progress (one at a time). */
  running?: string;
  /** How the last run failed, when it did (the page shows it). */
  lastError?: { sessionId: string; message: string };
}
