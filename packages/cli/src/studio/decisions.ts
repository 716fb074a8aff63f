import {
  ApprovalKeyError,
  approveCheckpoint,
  approveToolCall,
  CheckpointDecisionError,
  CheckpointNotPendingError,
  denyToolCall,
  InvalidSessionIdError,
  rejectCheckpoint,
  type SessionStore,
  ToolApprovalDecisionError,
  ToolCallNotPendingError,
  UnknownCheckpointError,
  UnknownSessionError,
  UnknownToolCallError,
} from '@agate/core';
import type { LedgerEntry } from '@agate/core/guards';

/** The key decisions from the page are signed with: the one the studio's process holds. */
export interface StudioSigner {
  /** An Ed25519 private key (PEM), never sent to the page. */
  privateKey?: string;
  /** Or the shared secret (HMAC, version-1 ledgers). */
  key?: string;
}

/** The body's text fields, by name (absent or blank: undefined). */
type Field = (name: string) => string | undefined;

/** Makes one decision in the core, on the stored session. */
export type MakeDecision = (
  sessionId: string,
  id: string,
  by: string,
  field: Field,
) => Promise<LedgerEntry>;

/** How a decision from the page is answered. */
export interface DecisionAnswer {
  ok: boolean;
  status: number;
  body: unknown;
}

/**
 * The decisions the page can make, by the URL's `checkpoints|tool-calls/<id>/<verb>`, each
 * signed with the studio's key. A rejection and a denial need their text (the core says so
 * when it is missing).
 */
export function studioDecisions(store: SessionStore, given: StudioSigner) {
  const signer = {
    ...(given.privateKey !== undefined ? { privateKey: given.privateKey } : {}),
    ...(given.key !== undefined && given.privateKey === undefined ? { key: given.key } : {}),
  };
  const table: { readonly [noun: string]: { readonly [verb: string]: MakeDecision } } = {
    checkpoints: {
      approve: (sessionId, id, by, field) =>
        approveCheckpoint(store, sessionId, id, { by, ...optional('note', field), ...signer }),
      reject: (sessionId, id, by, field) =>
        rejectCheckpoint(store, sessionId, id, {
          by,
          feedback: field('feedback') ?? '',
          ...signer,
        }),
    },
    'tool-calls': {
      approve: (sessionId, id, by, field) =>
        approveToolCall(store, sessionId, id, { by, ...optional('reason', field), ...signer }),
      deny: (sessionId, id, by, field) =>
        denyToolCall(store, sessionId, id, { by, reason: field('reason') ?? '', ...signer }),
    },
  };
  return {
    /** The decision at `noun/verb`; own keys only (`constructor` or `__proto__` names none). */
    at(noun: string, verb: string): MakeDecision | undefined {
      const verbs = Object.hasOwn(table, noun) ? table[noun] : undefined;
      return verbs !== undefined && Object.hasOwn(verbs, verb) ? verbs[verb] : undefined;
    },
  };
}

/** A decision from the page: who decides (`by`) is required; `record` makes it in the core. */
export async function decide(
  body: unknown,
  record: (by: string, field: Field) => Promise<LedgerEntry>,
): Promise<DecisionAnswer> {
  const fields =
    typeof body === 'object' && body !== null ? (body as { [name: string]: unknown }) : {};
  const by = text(fields.by);
  if (by === undefined)
    return { ok: false, status: 400, body: { error: 'Say who decides ("by").' } };
  try {
    const entry = await record(by, (name) => text(fields[name]));
    return {
      ok: true,
      status: 200,
      body: {
        kind: entry.kind,
        by: entry.by,
        seq: entry.seq,
        signed: entry.signature !== undefined,
      },
    };
  } catch (error) {
    return refused(error);
  }
}

/** A decision's typed error as an HTTP answer (anything else is a server error). */
function refused(error: unknown): DecisionAnswer {
  const message = error instanceof Error ? error.message : String(error);
  if (
    UnknownSessionError.isInstance(error) ||
    UnknownCheckpointError.isInstance(error) ||
    UnknownToolCallError.isInstance(error)
  ) {
    return { ok: false, status: 404, body: { error: message } };
  }
  if (CheckpointNotPendingError.isInstance(error) || ToolCallNotPendingError.isInstance(error)) {
    return { ok: false, status: 409, body: { error: message } };
  }
  if (
    CheckpointDecisionError.isInstance(error) ||
    ToolApprovalDecisionError.isInstance(error) ||
    InvalidSessionIdError.isInstance(error) ||
    ApprovalKeyError.isInstance(error)
  ) {
    return { ok: false, status: 400, body: { error: message } };
  }
  throw error;
}

/** `{ [name]: text }` when the body has that text field, else nothing. */
function optional<K extends string>(name: K, field: Field): Partial<{ [key in K]: string }> {
  const value = field(name);
  return value === undefined ? {} : ({ [name]: value } as { [key in K]: string });
}

/**
 * A text field as sent, trimmed: never cut, so a name or a reason over the core's bound
 * (200 characters, no control characters) is refused whole (400), not recorded shortened.
 */
function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}
