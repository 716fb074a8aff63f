/**
 * One side of the cross-process checkpoint test, run as a child process:
 *   run     <dir> <id>                        runs (or continues) the agent on a file store
 *   approve <dir> <id> <checkpoint> <by> <note>  approveCheckpoint on the stored session
 * Signs with AGATE_APPROVAL_KEY from the environment. Prints one JSON line on stdout.
 */
import { createFileStore } from '../../../persistence/file-store.js';
import type { AgateEvent } from '../../../runtime/events.js';
import { createSession } from '../../../runtime/session.js';
import { approveCheckpoint } from '../approve-checkpoint.js';
import { CheckpointAgent, checkpointModel } from './checkpoint-agent.js';

async function main(): Promise<void> {
  const [mode, dir, id, checkpoint, by, note] = process.argv.slice(2);
  if (dir === undefined || id === undefined) throw new Error('usage: see the file header');
  const store = createFileStore(dir);
  if (mode === 'approve') {
    const entry = await approveCheckpoint(store, id, checkpoint ?? '', {
      by: by ?? '',
      ...(note !== undefined ? { note } : {}),
    });
    process.stdout.write(`${JSON.stringify({ entry })}\n`);
    return;
  }
  if (mode !== 'run') throw new Error(`unknown mode ${mode}`);
  const model = checkpointModel();
  const snapshot = await store.load(id);
  const warnings: string[] = [];
  const onEvent = (e: AgateEvent) => {
    if (e.type === 'warning') warnings.push(e.message);
  };
  const session = createSession(<CheckpointAgent />, {
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
      ticks: result.ticks,
      totalTicks: result.totalTicks,
      modelCalls: model.calls.length,
      firstRequest: JSON.stringify(model.calls[0]?.prompt ?? null),
      checkpoints: result.checkpoints,
      ledger: result.checkpointLedger,
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
