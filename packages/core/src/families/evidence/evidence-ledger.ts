import { normalizeCommand, normalizePath } from './normalize.js';
import type { TodoEvidence } from './todo-types.js';

export type PathEvidenceKind = 'read' | 'edit';

/** What one executed tool call is evidence of (from the tool's `evidence` prop). */
export type ReceiptEvidence =
  | { kind: 'command'; command: string }
  | { kind: PathEvidenceKind; paths: readonly string[] };

/** One executed tool call of the current turn, as the host saw it. */
export interface Receipt {
  /** Order within the turn, from 1. */
  seq: number;
  tick: number;
  toolCallId: string;
  toolName: string;
  /** The validated input. */
  input: unknown;
  /** `execute` returned without throwing and `ok(output)` (when given) was true. */
  ok: boolean;
  evidence?: ReceiptEvidence;
}

export type ReceiptInput = Omit<Receipt, 'seq'>;

/** A successful `complete_step`: the item it matched, as the item was then. */
export interface SignOff {
  seq: number;
  tick: number;
  content: string;
  activeForm: string;
  /** The item's 1-based number when it was signed off. */
  number: number;
  evidence: TodoEvidence;
}

export type CommandMatch =
  | { status: 'ok'; receipt: Receipt }
  /** It ran this turn, and its latest run failed. */
  | { status: 'failed'; receipt: Receipt }
  | { status: 'missing' };

export interface PathsMatch {
  /** Normalized paths with a successful receipt of an accepted kind. */
  found: string[];
  /** Normalized paths whose receipts of an accepted kind all failed. */
  failed: string[];
  /** Normalized paths with no receipt of an accepted kind. */
  missing: string[];
}

/**
 * The evidence ledger of one turn: every executed tool call's receipt and every sign-off,
 * in memory only. Nothing here is written to the context, the schemas, the session state or a
 * snapshot; `clear()` starts a new turn. Capped, so a runaway turn cannot grow it without bound
 * (the oldest receipts go first).
 */
export interface Ledger {
  record(receipt: ReceiptInput): Receipt;
  /** The latest run of `command` this turn (whitespace collapsed) decides: ok, failed or missing. */
  findCommand(command: string): CommandMatch;
  /**
   * Which `paths` have a successful receipt of `kind` (or of any kind in the list) this turn.
   * Paths compare normalized (`./a//b` is `a/b`).
   */
  findPaths(
    kind: PathEvidenceKind | readonly PathEvidenceKind[],
    paths: readonly string[],
  ): PathsMatch;
  /** Records a successful `complete_step` (what `todo_write` checks completions against). */
  signOff(entry: Omit<SignOff, 'seq'>): SignOff;
  receipts(): readonly Receipt[];
  signOffs(): readonly SignOff[];
  clear(): void;
}

export const LEDGER_CAP = 10_000;

export function createLedger(options: { cap?: number } = {}): Ledger {
  const cap = options.cap ?? LEDGER_CAP;
  let receipts: Receipt[] = [];
  let signOffs: SignOff[] = [];
  /** The latest receipt of each command (whitespace collapsed), so a lookup is one map read. */
  let latestRun = new Map<string, Receipt>();
  let seq = 0;

  const index = (r: Receipt) => {
    if (r.evidence?.kind === 'command') latestRun.set(normalizeCommand(r.evidence.command), r);
  };

  return {
    record(input) {
      const receipt: Receipt = { ...input, seq: ++seq };
      receipts.push(receipt);
      index(receipt);
      // Amortized trim: drop a chunk at once, then re-index what is left.
      if (receipts.length > cap * 2) {
        receipts = receipts.slice(-cap);
        latestRun = new Map();
        for (const r of receipts) index(r);
      }
      return receipt;
    },
    findCommand(command) {
      const r = latestRun.get(normalizeCommand(command));
      if (r === undefined) return { status: 'missing' };
      return r.ok ? { status: 'ok', receipt: r } : { status: 'failed', receipt: r };
    },
    findPaths(kind, paths) {
      const kinds: readonly PathEvidenceKind[] = typeof kind === 'string' ? [kind] : kind;
      const ok = new Set<string>();
      const failed = new Set<string>();
      for (const r of receipts) {
        const e = r.evidence;
        if (e === undefined || e.kind === 'command' || !kinds.includes(e.kind)) continue;
        for (const p of e.paths) (r.ok ? ok : failed).add(normalizePath(p));
      }
      const out: PathsMatch = { found: [], failed: [], missing: [] };
      for (const path of new Set(paths.map(normalizePath))) {
        if (ok.has(path)) out.found.push(path);
        else if (failed.has(path)) out.failed.push(path);
        else out.missing.push(path);
      }
      return out;
    },
    signOff(entry) {
      const signed: SignOff = { ...entry, seq: ++seq };
      signOffs.push(signed);
      if (signOffs.length > cap * 2) signOffs = signOffs.slice(-cap);
      return signed;
    },
    receipts: () => receipts.slice(-cap),
    signOffs: () => signOffs.slice(-cap),
    clear() {
      receipts = [];
      signOffs = [];
      latestRun = new Map();
      seq = 0;
    },
  };
}
