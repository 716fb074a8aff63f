import type { SessionState } from '@agate/core';
import type { CheckpointLedgerEntry, LedgerEntry, ToolLedgerEntry } from '@agate/core/guards';
import type { SessionView, StudioPendingCall, StudioSession } from './api-types.js';
import { conversationOf, jsonText } from './conversation.js';
import { describeLedgerEntry } from './decision-text.js';

/**
 * What the studio shows of a session, from its state alone (a stored snapshot or the live
 * run's): the list row and the whole view. No tick log is needed: the conversation, the
 * decisions waiting and the ledger are all in the state.
 */

/** The session list's row. */
export function sessionRow(state: SessionState, live: boolean): StudioSession {
  return {
    id: state.id,
    status: state.status,
    ticks: state.tick,
    live,
    pending: pendingCheckpoints(state),
    pendingCalls: pendingCalls(state).map(({ id, toolName, tick }) => ({ id, toolName, tick })),
  };
}

/** The whole session: what `GET /api/sessions/<id>` answers. */
export function sessionView(state: SessionState, live: boolean): SessionView {
  return {
    id: state.id,
    status: state.status,
    ...(state.reason !== undefined ? { reason: state.reason } : {}),
    ticks: state.tick,
    live,
    ...(state.usage !== undefined ? { usage: state.usage } : {}),
    pending: pendingCheckpoints(state),
    pendingCalls: pendingCalls(state),
    messages: conversationOf(state.timeline),
    ledger: bothLedgers(state).map(describeLedgerEntry),
  };
}

function ledgerOf(state: SessionState): CheckpointLedgerEntry[] {
  const ledger: unknown = state.guards.checkpoints?.ledger;
  return Array.isArray(ledger) ? (ledger as CheckpointLedgerEntry[]) : [];
}

function toolLedgerOf(state: SessionState): ToolLedgerEntry[] {
  const ledger: unknown = state.guards.approvals?.ledger;
  return Array.isArray(ledger) ? (ledger as ToolLedgerEntry[]) : [];
}

/**
 * The checkpoint and tool-call ledgers as one list, in time order (each numbers its own
 * entries, so `seq` cannot order them); entries of the same instant keep their ledger's order.
 */
function bothLedgers(state: SessionState): LedgerEntry[] {
  const all: LedgerEntry[] = [...ledgerOf(state), ...toolLedgerOf(state)];
  const at = (e: LedgerEntry) => (typeof e?.at === 'string' ? e.at : '');
  return all
    .map((entry, i) => ({ entry, i }))
    .sort((a, b) => (at(a.entry) < at(b.entry) ? -1 : at(a.entry) > at(b.entry) ? 1 : a.i - b.i))
    .map(({ entry }) => entry);
}

function pendingCheckpoints(state: SessionState): Array<{ id: string; reason?: string }> {
  return Object.entries(state.guards.checkpoints?.records ?? {})
    .filter(([id, record]) => record.state === 'pending' && !decided(state, id))
    .map(([id, record]) => ({
      id,
      ...(record.reason !== undefined ? { reason: record.reason } : {}),
    }));
}

/** A decision recorded (by the CLI or this page) but not yet taken by a run. */
function decided(state: SessionState, id: string): boolean {
  const last = ledgerOf(state)
    .filter((e) => e.checkpoint === id)
    .at(-1);
  return last?.kind === 'approved' || last?.kind === 'rejected';
}

/**
 * The held calls, each with its whole input and the digest its decision is signed over: the
 * `inputHash` of the ledger's latest request for the call. When the input in the file was
 * edited after the request, the core refuses the decision (the digests differ).
 */
function pendingCalls(state: SessionState): StudioPendingCall[] {
  const calls: unknown = state.guards.approvals?.calls;
  if (!Array.isArray(calls)) return [];
  const ledger = toolLedgerOf(state);
  return (calls as NonNullable<SessionState['guards']['approvals']>['calls'])
    .filter((record) => record?.state === 'pending' && typeof record.id === 'string')
    .map((record) => {
      const request = ledger.findLast(
        (e) => e.checkpoint === record.id && e.kind === 'tool-approval-request',
      );
      return {
        id: record.id,
        toolName: record.toolName,
        tick: record.tick,
        input: jsonText(record.input),
        ...(typeof request?.inputHash === 'string' ? { digest: request.inputHash } : {}),
        ...(typeof request?.reason === 'string' ? { reason: request.reason } : {}),
      };
    });
}
