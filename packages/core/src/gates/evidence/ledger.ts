import { normalizeCommand, normalizePath } from './normalize.js';
import type { TodoEvidence } from './types.js';

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
  let seq = 0;

  const trim = <T>(list: T[]): T[] => (list.length > cap * 2 ? list.slice(-cap) : list);

  return {
    record(input) {
      const receipt: Receipt = { ...input, seq: ++seq };
      receipts.push(receipt);
      receipts = trim(receipts);
      return receipt;
    },
    findCommand(command) {
      const wanted = normalizeCommand(command);
      for (let i = receipts.length - 1; i >= 0; i--) {
        const r = receipts[i]!;
        if (r.evidence?.kind !== 'command' || normalizeCommand(r.evidence.command) !== wanted)
          continue;
        return r.ok ? { status: 'ok', receipt: r } : { status: 'failed', receipt: r };
      }
      return { status: 'missing' };
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
      signOffs = trim(signOffs);
      return signed;
    },
    receipts: () => receipts.slice(-cap),
    signOffs: () => signOffs.slice(-cap),
    clear() {
      receipts = [];
      signOffs = [];
      seq = 0;
    },
  };
}
