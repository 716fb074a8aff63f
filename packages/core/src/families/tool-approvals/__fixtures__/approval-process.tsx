/**
 * One side of the cross-process approval test, run as a child process:
 *   run     <dir> <id>                              runs (or continues) the agent on a file store
 *   approve <dir> <id> <callId> <by> [reason]       approveToolCall on the stored session
 *   deny    <dir> <id> <callId> <by> <reason>       denyToolCall on the stored session
 * Signs with AGATE_APPROVAL_KEY from the environment. Prints one JSON line on stdout.
 */
import { createFileStore } from '../../../persistence/file-store.js';
import type { AgateEvent } from '../../../runtime/events.js';
import { createSession } from '../../../runtime/session.js';
import { approveToolCall, denyToolCall } from '../approve-tool-call.js';
import { ApprovalAgent, approvalModel, executed } from './approval-agent.js';

async function main(): Promise<void> {
  const [mode, dir, id, callId, by, reason] = process.argv.slice(2);
  if (dir === undefined || id === undefined) throw new Error('usage: see the file header');
  const store = createFileStore(dir);
  if (mode === 'approve' || mode === 'deny') {
    const decide = mode === 'approve' ? approveToolCall : denyToolCall;
    const entry = await decide(store, id, callId ?? '', { by: by ?? '', reason: reason ?? '' });
    process.stdout.write(`${JSON.stringify({ entry })}\n`);
    return;
  }
  if (mode !== 'run') throw new Error(`unknown mode ${mode}`);
  const snapshot = await store.load(id);
  // A continued session's model is at its second turn: the first was answered before.
  const model = approvalModel(snapshot !== undefined);
  const warnings: string[] = [];
  const onEvent = (e: AgateEvent) => {
    if (e.type === 'warning') warnings.push(e.message);
  };
  const session = createSession(<ApprovalAgent />, {
    model,
    store,
    onEvent,
    ...(snapshot !== undefined ? { snapshot } : { id }),
  });
  const result = await session.run();
  session.dispose();
  process.stdout.write(
    `${JSON.stringify({
      status: result.status,
      reason: result.reason,
      pendingApprovals: result.pendingApprovals,
      executed,
      modelCalls: model.calls.length,
      lastPrompt: model.calls.at(-1)?.prompt ?? null,
      warnings,
      timeline: result.timeline,
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
