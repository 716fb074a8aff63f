import type { KeyObject } from 'node:crypto';
import {
  resolveApprovalKey,
  resolveApprovalPublicKey,
  toPrivateKey,
} from '../../approvals/approval-signing.js';
import {
  allLedgerEntries,
  requireVerifier,
  type SigningContext,
  sessionSigning,
  toolLedgerOf,
} from '../../approvals/decision-ledger.js';
import type { ToolCallLedgerEntry } from '../../approvals/ledger-types.js';
import { InvalidElementError } from '../../components/render-errors.js';
import { errorMessage } from '../../ground/thrown.js';
import type {
  BeforeModelVerdict,
  Guard,
  GuardHost,
  GuardTick,
  ReleasedCall,
  ToolCallOutcome,
  ToolCallVerdict,
} from '../../guard-seam/guard-family.js';
import type { CompiledTree } from '../../renderer/compile.js';
import type { CompiledTool } from '../../renderer/compiled-context.js';
import { defineToolProp } from '../../renderer/tool-props.js';
import { untilAborted } from '../../runtime/abort.js';
import type { RunReport } from '../../runtime/session-options.js';
import { validateInput } from '../../runtime/tool-execution.js';
import type { TickToolCall } from '../../state/tick-result.js';
import { awaitingApprovalReason, deniedResult, spentResult } from './approval-instructions.js';
import {
  applyApprovalCorrections,
  approvalsOf,
  decideToolCall,
  findApprovalCorrections,
  findOrphanedRequests,
  findSpentUnanswered,
  inCallOrder,
  pendingApprovals,
  recordExecution,
  requestApproval,
  type ToolCallDecision,
} from './approval-ledger.js';
import {
  APPROVALS_FAMILY,
  type NeedsApproval,
  type PendingToolApproval,
  type ToolApprovalInput,
  type ToolDenialInput,
} from './tool-approval-types.js';

// The <Tool> prop this family reads.
defineToolProp('needsApproval', (tool, approval) => {
  if (typeof approval !== 'boolean' && typeof approval !== 'function') {
    throw new InvalidElementError(
      `<Tool name="${tool}"> needsApproval must be true, false or a function of the input (got ${JSON.stringify(approval)}).`,
    );
  }
});

const ALLOW: ToolCallVerdict = { kind: 'allow' };
const PROCEED: BeforeModelVerdict = { kind: 'proceed' };

/**
 * Human approval of single tool calls (`<Tool needsApproval>`), on the guard seam:
 *   beforeToolCall   holds a call whose tool needs approval (after every other family let it
 *                    through: a refused call is refused, not put up for approval)
 *   tickEnd          ends the run `awaiting-approval` when the tick held a call
 *   beforeModelCall  no model call while any call waits for a decision
 *   releaseHeldCalls once every held call is decided: approved ones run, denied ones are answered
 *   afterToolCall    a released call's result is in: its record is done
 * Requests and decisions are entries of the checkpoint ledger, signed with the same key.
 */
export class ApprovalGuard implements Guard {
  readonly name = APPROVALS_FAMILY;
  private verified = false;
  /**
   * Calls that ran under their approval but whose result the restored timeline lacks: answered
   * with an error at the next release, never run again (found by `verify`).
   */
  private spentUnanswered: ReleasedCall[] = [];
  /** Whether a tool of the last render may need a person's approval (see `engaged`). */
  private toolsMayNeedApproval = false;
  private publicKeyCache: { value: KeyObject | undefined } | undefined;

  constructor(private readonly host: GuardHost) {}

  // ---- the person's API (session.approveToolCall / session.denyToolCall) -------------------

  approveToolCall(id: string, input: Omit<ToolApprovalInput, 'key'>): ToolCallLedgerEntry {
    const reason = input?.reason;
    const entry = this.decideLive(
      id,
      { approved: true, by: input?.by, ...(reason !== undefined ? { reason } : {}) },
      input?.privateKey,
    );
    this.host.emit({
      type: 'tool:approved',
      tick: entry.tick,
      toolCallId: id,
      by: entry.by,
      ...(entry.reason !== undefined ? { reason: entry.reason } : {}),
    });
    return entry;
  }

  denyToolCall(id: string, input: Omit<ToolDenialInput, 'key'>): ToolCallLedgerEntry {
    const entry = this.decideLive(
      id,
      { approved: false, by: input?.by, reason: input?.reason },
      input?.privateKey,
    );
    this.host.emit({
      type: 'tool:denied',
      tick: entry.tick,
      toolCallId: id,
      by: entry.by,
      reason: entry.reason ?? '',
    });
    return entry;
  }

  /** The calls waiting for a decision, in call order. */
  pending(): PendingToolApproval[] {
    this.verify();
    return pendingApprovals(this.host.state());
  }

  // ---- guard hooks ------------------------------------------------------------------------

  runStart(): void {
    this.verify();
  }

  /**
   * Engaged while a rendered tool may need approval or the state holds approval records. The
   * tools are read at render: a tool's `needsApproval` is one of its props.
   */
  engaged(): boolean {
    return this.toolsMayNeedApproval || approvalsOf(this.host.state()).length > 0;
  }

  render(tree: CompiledTree): undefined {
    this.toolsMayNeedApproval = tree.tools.some(
      (t) => t.guard?.needsApproval !== undefined && t.guard.needsApproval !== false,
    );
    return undefined;
  }

  releaseHeldCalls(): ReleasedCall[] {
    this.verify();
    const records = approvalsOf(this.host.state());
    if (records.some((r) => r.state === 'pending')) return [];
    const refused = this.spentUnanswered;
    if (records.length === 0 && refused.length === 0) return [];
    this.spentUnanswered = [];
    const decided = inCallOrder(records).map((r): ReleasedCall => {
      const call: TickToolCall = { toolCallId: r.id, toolName: r.toolName, input: r.input };
      return r.state === 'denied'
        ? { call, answer: { output: deniedResult(r), isError: true } }
        : { call };
    });
    return [...refused, ...decided];
  }

  beforeModelCall(): BeforeModelVerdict {
    return this.endIfPending();
  }

  beforeToolCall(tick: GuardTick, call: TickToolCall): ToolCallVerdict | Promise<ToolCallVerdict> {
    const record = approvalsOf(this.host.state()).find((r) => r.id === call.toolCallId);
    // A released call (approved): it runs now, and its approval is spent as it does. This
    // family is asked last, so no other will refuse it after this.
    if (record !== undefined) {
      if (record.state === 'approved') {
        const signing = this.signing();
        this.host.update((draft) => {
          recordExecution(draft, record.id, tick.tick, signing);
        });
      }
      return ALLOW;
    }
    const tool = tick.context.tools.find((t) => t.name === call.toolName);
    const needs = tool?.guard?.needsApproval as NeedsApproval<unknown> | undefined;
    if (tool === undefined || needs === undefined || needs === false) return ALLOW;
    return this.judge(tick, call, tool, needs);
  }

  afterToolCall(_tick: GuardTick, outcome: ToolCallOutcome): void {
    const id = outcome.call.toolCallId;
    const state = this.host.state();
    if (!approvalsOf(state).some((r) => r.id === id && r.state !== 'pending')) return;
    this.host.update((draft) => {
      draft.guards.approvals.calls = draft.guards.approvals.calls.filter((r) => r.id !== id);
    });
  }

  tickEnd(): BeforeModelVerdict {
    // The tick is committed with the held calls unanswered; the run ends here.
    return this.endIfPending();
  }

  report(): RunReport {
    const state = this.host.state();
    return { pendingApprovals: pendingApprovals(state), toolCallLedger: [...toolLedgerOf(state)] };
  }

  // ---- internals --------------------------------------------------------------------------

  /** Holds the call when its tool says so; invalid arguments are left to the runtime's error. */
  private async judge(
    tick: GuardTick,
    call: TickToolCall,
    tool: CompiledTool,
    needs: NeedsApproval<unknown>,
  ): Promise<ToolCallVerdict> {
    const parsed = await validateInput(tool, call.input);
    if (!parsed.ok) return ALLOW;
    let note: string | undefined;
    if (typeof needs === 'function') {
      try {
        // A check that never settles must not hold the run past an abort.
        const asked = await untilAborted(
          Promise.resolve(
            needs(parsed.value, {
              toolCallId: call.toolCallId,
              tick: tick.tick,
              messages: tick.context.messages,
            }),
          ),
          tick.signal,
        );
        if (!asked) return ALLOW;
      } catch (error) {
        tick.signal.throwIfAborted();
        // Failing closed: a check that cannot answer must not let a dangerous call through.
        note = `its needsApproval function threw (${errorMessage(error)}), so a person decides`;
        this.host.emit({
          type: 'warning',
          tick: tick.tick,
          code: 'needs-approval-failed',
          message: `needsApproval of tool "${tool.name}" threw: ${errorMessage(error)}. The call (${call.toolCallId}) is held for approval.`,
        });
      }
    }
    const index = approvalsOf(this.host.state()).filter((r) => r.tick === tick.tick).length;
    const signing = this.signing();
    this.host.update((draft) => {
      requestApproval(
        draft,
        {
          id: call.toolCallId,
          toolName: call.toolName,
          input: call.input,
          tick: tick.tick,
          index,
          ...(note !== undefined ? { reason: note } : {}),
        },
        signing,
      );
    });
    return {
      kind: 'hold',
      reason: note ?? `tool "${tool.name}" needs approval`,
    };
  }

  private endIfPending(): BeforeModelVerdict {
    const pending = this.pending();
    if (pending.length === 0) return PROCEED;
    return {
      kind: 'end',
      status: 'awaiting-approval',
      reason: awaitingApprovalReason(this.host.sessionId, pending),
    };
  }

  private decideLive(
    id: string,
    decision: ToolCallDecision,
    privateKey: ToolApprovalInput['privateKey'],
  ): ToolCallLedgerEntry {
    this.verify();
    const signing = this.signing();
    // In the key-pair mode the session holds no private key: a decision must bring one.
    const key = privateKey === undefined ? undefined : toPrivateKey(privateKey);
    const context = key === undefined ? signing : { ...signing, key: undefined, privateKey: key };
    let entry: ToolCallLedgerEntry | undefined;
    this.host.update((draft) => {
      entry = decideToolCall(draft, id, decision, context);
    });
    return entry!;
  }

  /** As the checkpoint family signs: stamped with the public key, or HMAC with the shared secret. */
  private signing(): SigningContext {
    return sessionSigning(this.host, this.publicKey());
  }

  private publicKey(): KeyObject | undefined {
    this.publicKeyCache ??= {
      value: resolveApprovalPublicKey(this.host.options.approvalPublicKey),
    };
    return this.publicKeyCache.value;
  }

  /**
   * Once per session, before anything reads the held calls: a restored decision the ledger does
   * not prove (edited, copied, unsigned where a key is set) is pending again, with a warning.
   */
  private verify(): void {
    if (this.verified) return;
    const state = this.host.state();
    const key = resolveApprovalKey(this.host.options.approvalKey);
    const verifier = {
      key: key !== undefined && key.trim() !== '' ? key : undefined,
      publicKey: this.publicKey(),
    };
    // Before anything is read: a ledger written under a key is never taken unsigned.
    requireVerifier(allLedgerEntries(state), verifier, this.host.sessionId);
    this.verified = true;
    const orphans = findOrphanedRequests(state);
    if (orphans.length > 0) {
      this.host.update((draft) => {
        if (!Array.isArray(draft.guards.approvals.calls)) draft.guards.approvals.calls = [];
        draft.guards.approvals.calls.push(...orphans);
      });
      for (const o of orphans) {
        this.host.emit({
          type: 'warning',
          tick: state.tick,
          code: 'tool-approval-unverified',
          message: `Tool call "${o.id}" counts as pending: the ledger holds its approval request and the timeline its call without a result, but the session file has no record of it (it was removed). A person must decide it.`,
        });
      }
    }
    const corrections = findApprovalCorrections(this.host.state(), this.host.sessionId, verifier);
    if (corrections.length > 0) {
      this.host.update((draft) => applyApprovalCorrections(draft, corrections));
    }
    for (const c of corrections) {
      this.host.emit(
        c.outcome === 'refused'
          ? {
              type: 'warning',
              tick: state.tick,
              code: 'tool-approval-spent',
              message: `Tool call "${c.id}" is not run again: the restored session records it as ${c.from}, but ${c.why}. An approval authorizes one execution; the record is dropped.`,
            }
          : {
              type: 'warning',
              tick: state.tick,
              code: 'tool-approval-unverified',
              message: `Tool call "${c.id}" counts as pending: the restored session records it as ${c.from}, but ${c.why}. A person must decide it (again).`,
            },
      );
    }
    // A spent call whose result was removed from the timeline is answered, not run again.
    const spent = findSpentUnanswered(this.host.state());
    this.spentUnanswered = inCallOrder(spent).map((s) => ({
      call: { toolCallId: s.id, toolName: s.toolName, input: s.input },
      answer: { output: spentResult(s.toolName, s.executed.tick), isError: true },
    }));
    for (const s of spent) {
      this.host.emit({
        type: 'warning',
        tick: state.tick,
        code: 'tool-approval-spent',
        message: `Tool call "${s.id}" is not run again: it ran at tick ${s.executed.tick} under its approval (ledger entry ${s.executed.seq}), but its result is missing from the restored timeline. The model is told it was not run again.`,
      });
    }
  }
}
