import type { PendingToolApproval, ToolApprovalRecord } from './tool-approval-types.js';

/** What the model sees for a denied call, in place of its result. */
export function deniedResult(
  record: Pick<ToolApprovalRecord, 'toolName' | 'by' | 'reason'>,
): string {
  return `The call to ${record.toolName} was denied by ${record.by ?? 'a person'} and was not executed. Reason: ${record.reason ?? '(none given)'}`;
}

/**
 * What the model sees for a call whose approval was already spent (it ran) when its result is
 * missing from the restored timeline: it is not run a second time.
 */
export function spentResult(toolName: string, executedAtTick: number): string {
  return `The call to ${toolName} was not run again: it already ran at tick ${executedAtTick} under its approval, and an approval authorizes one execution. Its earlier result is not available. Call the tool again if it must run again; a person will be asked to approve it.`;
}

/** The run's reason while calls wait: which, and how to decide them. */
export function awaitingApprovalReason(
  sessionId: string,
  pending: readonly PendingToolApproval[],
): string {
  const calls = pending.map((p) => `${p.toolName} (${p.id})`).join(', ');
  const first = pending[0]!.id;
  return (
    `Awaiting approval of ${pending.length === 1 ? 'a tool call' : `${pending.length} tool calls`}: ${calls}. ` +
    `Decide with session.approveToolCall(id, { by }) / denyToolCall(id, { by, reason }), or ` +
    `agate approve ${sessionId} ${first} --by NAME / agate deny ${sessionId} ${first} --by NAME --reason TEXT; then run() again.`
  );
}
