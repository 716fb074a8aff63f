import { errorMessage } from '../../ground/thrown.js';
import type { ToolCallOutcome } from '../../guard-seam/guard-family.js';
import type { ReceiptEvidence, ReceiptInput } from './evidence-ledger.js';
import type { EvidenceSpec } from './evidence-spec.js';

export interface ReceiptProblem {
  /** Which function of the tool's `evidence` prop threw. */
  part: 'command' | 'paths' | 'ok';
  message: string;
}

/**
 * The receipt of one executed call (undefined when the call never ran: unknown tool, invalid
 * arguments, refused). It succeeded when `execute` returned and `ok(output)`, when given, is
 * true. A throwing `command`/`paths` leaves the receipt without evidence and a throwing `ok`
 * marks it failed: a bad evidence prop can only make evidence missing, never invent it.
 */
export function receiptOf(
  outcome: ToolCallOutcome,
  tick: number,
): { receipt?: ReceiptInput; problem?: ReceiptProblem } {
  if (!outcome.executed) return {};
  const spec = outcome.tool?.guard?.evidence as EvidenceSpec<unknown, unknown> | undefined;
  let ok = outcome.error === undefined && !outcome.result.isError;
  let evidence: ReceiptEvidence | undefined;
  let problem: ReceiptProblem | undefined;
  if (spec !== undefined) {
    try {
      evidence =
        spec.kind === 'command'
          ? { kind: 'command', command: String(spec.command(outcome.input)) }
          : { kind: spec.kind, paths: [...spec.paths(outcome.input)].map(String) };
    } catch (error) {
      problem = {
        part: spec.kind === 'command' ? 'command' : 'paths',
        message: errorMessage(error),
      };
    }
    if (ok && spec.ok !== undefined) {
      try {
        ok = spec.ok(outcome.output) === true;
      } catch (error) {
        ok = false;
        problem ??= { part: 'ok', message: errorMessage(error) };
      }
    }
  }
  return {
    receipt: {
      tick,
      toolCallId: outcome.call.toolCallId,
      toolName: outcome.call.toolName,
      input: outcome.input,
      ok,
      ...(evidence !== undefined ? { evidence } : {}),
    },
    ...(problem !== undefined ? { problem } : {}),
  };
}
