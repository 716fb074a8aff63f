import type { KeyObject } from 'node:crypto';
import {
  CheckpointNotPendingError,
  UnknownCheckpointError,
} from '../../approvals/approval-errors.js';
import {
  resolveApprovalKey,
  resolveApprovalPublicKey,
  toPrivateKey,
} from '../../approvals/approval-signing.js';
import {
  allLedgerEntries,
  applyCorrections,
  type Decision,
  decide,
  ensureRecord,
  findCorrections,
  ledgerOf,
  markPending,
  type PendingInput,
  recordsOf,
  requireVerifier,
  type SigningContext,
  sessionSigning,
} from '../../approvals/decision-ledger.js';
import { awaitingReason } from '../../approvals/decision-text.js';
import type {
  ApproveInput,
  CheckpointLedgerEntry,
  CheckpointRecord,
  CheckpointStatus,
  RejectInput,
} from '../../approvals/ledger-types.js';
import { AgateError } from '../../ground/agate-error.js';
import type {
  BeforeModelVerdict,
  Guard,
  GuardContribution,
  GuardHost,
  GuardTick,
  TickEndInfo,
  ToolCallOutcome,
  ToolCallVerdict,
} from '../../guard-seam/guard-family.js';
import type { CompiledTree } from '../../renderer/compile.js';
import type { CompiledContext } from '../../renderer/compiled-context.js';
import { defineToolProp, functionPropCheck } from '../../renderer/tool-props.js';
import type { RunReport } from '../../runtime/session-options.js';
import { LastOf } from '../../state/last-of.js';
import type { TickResult, TickToolCall } from '../../state/tick-result.js';
import { CheckpointDeclarationError } from './checkpoint-errors.js';
import { checkpointInstructions } from './checkpoint-instructions.js';
import {
  CHECKPOINT_FAMILY,
  type CheckpointProps,
  DEFAULT_CHECKPOINT_BUDGET,
} from './checkpoint-types.js';
import { captureBaseline, declaredWrites, triggerPath, wasWritten } from './file-trigger.js';
import {
  createSubmitTool,
  SUBMIT_CHECKPOINT_TOOL,
  type SubmitCheckpointInput,
} from './submit-checkpoint-tool.js';

// The <Tool> prop this family reads: the paths a call writes (file triggers).
defineToolProp('writes', functionPropCheck('writes'));

interface OpenCheckpoint {
  props: CheckpointProps;
  record: CheckpointRecord | undefined;
}

/**
 * The checkpoint family on the guard seam. The state machine and the ledger are pure functions
 * (`ledger.ts`); this class joins the rendered `<Checkpoint>`s (registry, mount order) with the
 * session state and acts at each point of the tick:
 *   render          the open checkpoint's instructions and the `submit_checkpoint` tool
 *   beforeModelCall no model call while any checkpoint is pending (`awaiting-approval`)
 *   beforeToolCall  refuses guarded tools while one is pending (the calls after a submit)
 *   afterToolCall   the file trigger, after every call that ran
 *   tickEnd         the budget; ends the run at once when a checkpoint went pending this tick
 */
const PROCEED: BeforeModelVerdict = { kind: 'proceed' };

export class CheckpointGuard implements Guard {
  readonly name = CHECKPOINT_FAMILY;
  readonly reservedTools = [SUBMIT_CHECKPOINT_TOOL];
  private verified = false;
  /** Props last seen per id, so a pending checkpoint keeps its `guards` after it unmounts. */
  private readonly lastKnown = new Map<string, CheckpointProps>();

  constructor(private readonly host: GuardHost) {}

  // ---- supervisor API (session.approve / session.reject) -----------------------------------

  approve(id: string, input: Omit<ApproveInput, 'key'>): CheckpointLedgerEntry {
    const note = input?.note;
    const entry = this.decideLive(
      id,
      { kind: 'approved', by: input?.by, ...(note !== undefined ? { note } : {}) },
      input?.privateKey,
    );
    this.host.emit({
      type: 'checkpoint:approved',
      tick: entry.tick,
      id,
      by: entry.by,
      ...(entry.note !== undefined ? { note: entry.note } : {}),
    });
    return entry;
  }

  reject(id: string, input: Omit<RejectInput, 'key'>): CheckpointLedgerEntry {
    const entry = this.decideLive(
      id,
      { kind: 'rejected', by: input?.by, feedback: input?.feedback },
      input?.privateKey,
    );
    this.host.emit({
      type: 'checkpoint:rejected',
      tick: entry.tick,
      id,
      by: entry.by,
      feedback: entry.feedback ?? '',
    });
    return entry;
  }

  /** Each checkpoint's state: the rendered ones in order, then any others the state records. */
  statuses(): Record<string, CheckpointStatus> {
    const records = recordsOf(this.host.state());
    const out: Record<string, CheckpointStatus> = {};
    for (const d of this.declared()) out[d.id] = records[d.id]?.state ?? 'unlocked';
    for (const [id, r] of Object.entries(records)) out[id] ??= r.state;
    return out;
  }

  // ---- guard hooks ------------------------------------------------------------------------

  runStart(): void {
    this.verify();
  }

  /** Engaged while a checkpoint is declared or the state holds any of their records. */
  engaged(): boolean {
    const state = this.host.state();
    return (
      this.declared().length > 0 ||
      Object.keys(recordsOf(state)).length > 0 ||
      ledgerOf(state).length > 0
    );
  }

  render(tree: CompiledTree): GuardContribution | undefined {
    this.verify();
    const declared = this.declared();
    const state = this.host.state();
    const records = recordsOf(state);
    if (declared.length === 0 && Object.keys(records).length === 0) return undefined;
    if (tree.tools.some((t) => t.name === SUBMIT_CHECKPOINT_TOOL)) {
      throw new CheckpointDeclarationError(
        `A <Tool> is named "${SUBMIT_CHECKPOINT_TOOL}", which Agate reserves for checkpoints. Rename the tool.`,
      );
    }
    const open = this.open();
    return {
      tools: open !== undefined ? [createSubmitTool((input) => this.submit(input))] : [],
      ephemeral: checkpointInstructions({
        declared,
        records,
        ledger: ledgerOf(state),
        tick: state.tick,
      }),
    };
  }

  check(context: CompiledContext): void {
    const declared = this.declared();
    // Only a checkpoint with `guards` names tools (the usual one guards every tool).
    if (!declared.some((d) => d.guards !== undefined)) return;
    const tools = new Set(context.tools.map((t) => t.name));
    for (const d of declared) {
      const missing = (d.guards ?? []).filter((name) => !tools.has(name));
      if (missing.length === 0) continue;
      this.host.warnOnce(
        `checkpoint-guards:${d.id}:${missing.join(',')}`,
        'checkpoint-guards-unknown',
        `<Checkpoint id="${d.id}"> guards ${missing.map((m) => `"${m}"`).join(', ')}, which no rendered tool is named; check the spelling.`,
      );
    }
  }

  // Synchronous unless a file must be read: an awaited hook costs every tick a promise.
  beforeModelCall(tick: GuardTick): BeforeModelVerdict | Promise<BeforeModelVerdict> {
    this.verify();
    const pending = this.pendingIds();
    if (pending.length > 0) return this.endAwaiting(pending[0]!);
    const open = this.open();
    if (open === undefined) return PROCEED;
    const id = open.props.id;
    if (open.record === undefined) {
      this.host.update((draft) => {
        ensureRecord(draft, id, tick.tick);
      });
    }
    // The file as it is before the first tool call of the checkpoint's round.
    const path = triggerPath(open.props);
    if (path === undefined || open.record?.baseline?.path === path) return PROCEED;
    return captureBaseline(path).then((baseline) => {
      this.host.update((draft) => {
        ensureRecord(draft, id, tick.tick).baseline = baseline;
      });
      return PROCEED;
    });
  }

  beforeToolCall(_tick: GuardTick, call: TickToolCall): ToolCallVerdict {
    // The submit tool answers for itself: a wrong id names the open checkpoint, a second
    // submission of the pending one adds its summary for the supervisor.
    if (call.toolName === SUBMIT_CHECKPOINT_TOOL) return { kind: 'allow' };
    for (const id of this.pendingIds()) {
      const guards = this.propsOf(id)?.guards;
      if (guards === undefined || guards.includes(call.toolName)) {
        return {
          kind: 'refuse',
          message: `Execution blocked. Supervisor must approve checkpoint ${id}.`,
        };
      }
    }
    return { kind: 'allow' };
  }

  afterToolCall(tick: GuardTick, outcome: ToolCallOutcome): void | Promise<void> {
    if (!outcome.executed) return;
    const open = this.open();
    const baseline = open?.record?.baseline;
    if (open === undefined || open.record?.state !== 'unlocked' || baseline === undefined) return;
    if (baseline.path !== triggerPath(open.props)) return;
    return this.checkTrigger(tick, outcome, open, baseline);
  }

  /** Did the call write the checkpoint's trigger file? Then the checkpoint goes pending. */
  private async checkTrigger(
    tick: GuardTick,
    outcome: ToolCallOutcome,
    open: OpenCheckpoint,
    baseline: NonNullable<NonNullable<OpenCheckpoint['record']>['baseline']>,
  ): Promise<void> {
    const workspace = open.props.workspace ?? process.cwd();
    const declared = declaredWrites(outcome.tool?.guard?.writes, outcome.input, workspace);
    if (!(await wasWritten(baseline, declared.includes(baseline.path)))) return;
    this.goPending(open.props.id, {
      cause: 'file',
      tick: tick.tick,
      by: 'runtime',
      reason: `${open.props.trigger?.fileWritten} was written (by a ${outcome.call.toolName} call)`,
    });
  }

  tickEnd(tick: GuardTick, result: TickResult, info: TickEndInfo): BeforeModelVerdict {
    const open = this.open();
    if (open !== undefined && open.record?.state !== 'pending') {
      const id = open.props.id;
      const budget = open.props.budget ?? DEFAULT_CHECKPOINT_BUDGET;
      let used = 0;
      this.host.update((draft) => {
        const record = ensureRecord(draft, id, tick.tick);
        record.ticks += 1;
        used = record.ticks;
      });
      if (used >= budget) {
        this.goPending(id, {
          cause: 'budget',
          tick: tick.tick,
          by: 'runtime',
          reason: `its budget of ${budget} tick${budget === 1 ? '' : 's'} ran out without a submit`,
        });
      } else if (result.toolCalls.length === 0 || info.finishing) {
        // Finishing is crossing the boundary too: the agent may not end the run past a
        // checkpoint it never submitted, so its work goes to the supervisor like a submission.
        // A final answer is finishing as much as a reply without tool calls is.
        this.goPending(id, {
          cause: 'finish',
          tick: tick.tick,
          by: 'runtime',
          reason: 'the agent tried to finish without submitting it',
        });
      }
    }
    // The tick is committed; the run ends here rather than at the next model call.
    const pending = this.pendingIds();
    return pending.length > 0 ? this.endAwaiting(pending[0]!) : { kind: 'proceed' };
  }

  report(): RunReport {
    return { checkpoints: this.statuses(), checkpointLedger: [...ledgerOf(this.host.state())] };
  }

  // ---- internals --------------------------------------------------------------------------

  /**
   * How this session signs its own entries: with a public key it cannot sign, so it stamps
   * them with the key that decides; with only a shared secret it signs them (version 1).
   */
  private signing(): SigningContext {
    return sessionSigning(this.host, this.publicKey());
  }

  private publicKeyCache: { value: KeyObject | undefined } | undefined;

  /** `approvalPublicKey`, else `AGATE_APPROVAL_PUBLIC_KEY`; read once per session. */
  private publicKey(): KeyObject | undefined {
    this.publicKeyCache ??= {
      value: resolveApprovalPublicKey(this.host.options.approvalPublicKey),
    };
    return this.publicKeyCache.value;
  }

  /** Rendered checkpoints in mount order (tree order). */
  private declared(): readonly CheckpointProps[] {
    const from = this.host.registry.ofFamily(CHECKPOINT_FAMILY);
    // The registry's list is the same object while no <Checkpoint> mounted, unmounted or
    // re-rendered: read several times a tick, derived once.
    const kept = this.declaredMemo.get(from, undefined);
    if (kept !== undefined) return kept;
    const list = from.map((d) => d.config as CheckpointProps);
    for (const props of list) this.lastKnown.set(props.id, props);
    return this.declaredMemo.set(from, undefined, list);
  }
  private readonly declaredMemo = new LastOf<readonly CheckpointProps[]>();

  private propsOf(id: string): CheckpointProps | undefined {
    return this.declared().find((d) => d.id === id) ?? this.lastKnown.get(id);
  }

  /** The first rendered checkpoint that is not approved. */
  private open(): OpenCheckpoint | undefined {
    return this.derived().open;
  }

  /** Pending checkpoints, rendered ones first (in order), then unmounted ones. */
  private pendingIds(): readonly string[] {
    return this.derived().pending;
  }

  /**
   * The open checkpoint and the pending ones, derived from the rendered list and the records:
   * asked at every point of the tick (and per tool call), they change only with either.
   */
  private derived(): { open: OpenCheckpoint | undefined; pending: readonly string[] } {
    const declared = this.declared();
    const records = recordsOf(this.host.state());
    const kept = this.derivedMemo.get(declared, records);
    if (kept !== undefined) return kept;
    const props = declared.find((d) => records[d.id]?.state !== 'approved');
    const open = props === undefined ? undefined : { props, record: records[props.id] };
    let pending = Object.keys(records).filter((id) => records[id]?.state === 'pending');
    if (pending.length > 1) {
      const order = declared.map((d) => d.id);
      const rank = (id: string) => (order.includes(id) ? order.indexOf(id) : order.length);
      pending = pending.sort((a, b) => rank(a) - rank(b));
    }
    return this.derivedMemo.set(declared, records, { open, pending });
  }
  private readonly derivedMemo = new LastOf<{
    open: OpenCheckpoint | undefined;
    pending: readonly string[];
  }>();

  private endAwaiting(id: string): BeforeModelVerdict {
    const record = recordsOf(this.host.state())[id];
    return {
      kind: 'end',
      status: 'awaiting-approval',
      reason: awaitingReason(this.host.sessionId, id, record?.reason),
    };
  }

  private submit(input: SubmitCheckpointInput): string {
    const open = this.open();
    if (open === undefined) {
      throw new AgateError(
        'No checkpoint is open: every checkpoint is approved. Carry on without submitting.',
      );
    }
    const id = open.props.id;
    if (input.id !== id) {
      const task = open.props.task !== undefined ? ` (${open.props.task})` : '';
      throw new AgateError(
        `"${input.id}" is not the open checkpoint. The open checkpoint is ${id}${task}: submit it with {"id": "${id}", "summary": ...} once its task is done.`,
      );
    }
    const wasPending = open.record?.state === 'pending';
    const tick = this.host.state().tick + 1;
    this.goPending(id, {
      cause: 'submit',
      tick,
      by: 'model',
      summary: input.summary,
      reason: `submitted: ${input.summary}`,
    });
    return wasPending
      ? `Checkpoint ${id} is already pending supervisor review; your summary was added for the supervisor. Nothing else runs until it is approved.`
      : `Checkpoint ${id} submitted for supervisor review. Nothing else runs until a supervisor approves it.`;
  }

  private goPending(id: string, input: PendingInput): void {
    let result: ReturnType<typeof markPending> | undefined;
    this.host.update((draft) => {
      result = markPending(draft, id, input, this.signing());
    });
    if (input.summary !== undefined) {
      this.host.emit({
        type: 'checkpoint:submitted',
        tick: input.tick,
        id,
        summary: input.summary,
      });
    }
    if (result?.becamePending) {
      this.host.emit({
        type: 'checkpoint:pending',
        tick: input.tick,
        id,
        cause: input.cause,
        reason: input.reason,
      });
    }
  }

  private decideLive(
    id: string,
    decision: Decision,
    privateKey: ApproveInput['privateKey'],
  ): CheckpointLedgerEntry {
    this.verify();
    const state = this.host.state();
    const records = recordsOf(state);
    if (records[id] === undefined) {
      const declared = this.declared().map((d) => d.id);
      if (declared.includes(id)) throw new CheckpointNotPendingError(id, 'unlocked');
      const known = [...new Set([...declared, ...Object.keys(records)])];
      throw new UnknownCheckpointError(id, this.host.sessionId, known);
    }
    let entry: CheckpointLedgerEntry | undefined;
    const signing = this.signing();
    // In the key-pair mode the session holds no private key: a decision must bring one.
    const key = privateKey === undefined ? undefined : toPrivateKey(privateKey);
    const context = key === undefined ? signing : { ...signing, key: undefined, privateKey: key };
    this.host.update((draft) => {
      entry = decide(draft, id, decision, context);
    });
    return entry!;
  }

  /**
   * Once per session, before anything reads the checkpoints: a restored state whose records
   * claim more than its ledger proves (an approval without a valid signature, a pending
   * checkpoint flipped back) is corrected to pending, with a warning saying why.
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
    const corrections = findCorrections(state, this.host.sessionId, verifier);
    if (corrections.length === 0) return;
    this.host.update((draft) => applyCorrections(draft, corrections));
    for (const c of corrections) {
      this.host.emit({
        type: 'warning',
        tick: state.tick,
        code: 'checkpoint-unverified',
        message: `Checkpoint "${c.id}" counts as pending: the restored session records it as ${c.from}, but ${c.why}. A supervisor must approve it (again).`,
      });
    }
  }
}
