import type { CheckpointLedgerEntry, CheckpointRecord } from '../../approvals/ledger-types.js';
import type { EphemeralBlock } from '../../renderer/compiled-context.js';
import { type CheckpointProps, DEFAULT_CHECKPOINT_BUDGET } from './checkpoint-types.js';
import { SUBMIT_CHECKPOINT_TOOL } from './submit-checkpoint-tool.js';

/**
 * What the model is told about checkpoints, as pure text: the open checkpoint's task and how
 * to submit it, a rejection's feedback (until the next submission), and an approval's note (on
 * the first request after it). Derived from state only, so it reads the same after a restore.
 */
export interface InstructionInput {
  /** Rendered checkpoints in order. */
  declared: readonly CheckpointProps[];
  records: Readonly<Record<string, CheckpointRecord>>;
  ledger: readonly CheckpointLedgerEntry[];
  /** The last finished tick (decisions made since then are news to the model). */
  tick: number;
}

export function checkpointInstructions(input: InstructionInput): EphemeralBlock[] {
  const blocks: EphemeralBlock[] = [];
  for (const entry of input.ledger) {
    if (entry.kind === 'approved' && entry.tick === input.tick) {
      blocks.push({
        text: `Checkpoint ${entry.checkpoint} was approved by ${entry.by}.${
          entry.note !== undefined ? ` Note from the supervisor: ${entry.note}` : ''
        }`,
        source: `checkpoint:${entry.checkpoint}`,
      });
    }
  }
  const index = input.declared.findIndex((d) => input.records[d.id]?.state !== 'approved');
  const open = input.declared[index];
  if (open === undefined) return blocks;
  const record = input.records[open.id];
  const source = `checkpoint:${open.id}`;
  if (record?.state === 'pending') {
    blocks.push({
      text: `Checkpoint ${open.id} is pending supervisor approval. Execution is blocked until a supervisor approves it.`,
      source,
    });
    return blocks;
  }
  const budget = open.budget ?? DEFAULT_CHECKPOINT_BUDGET;
  const left = budget - (record?.ticks ?? 0);
  const lines = [
    `Checkpoint ${open.id} is open (${index + 1} of ${input.declared.length}).`,
    ...(open.task !== undefined ? [`Task: ${open.task}`] : []),
    `When the task is done, call ${SUBMIT_CHECKPOINT_TOOL} with {"id": "${open.id}", "summary": "<what you did>"}. ` +
      'A supervisor reviews it; nothing else runs until it is approved.',
    ...(open.trigger !== undefined
      ? [`Writing ${open.trigger.fileWritten} submits it for review as it stands.`]
      : []),
    `Budget: ${left} of ${budget} ticks left; when it runs out the checkpoint goes to review as it stands.`,
  ];
  const rejection = lastRejection(input.ledger, open.id);
  if (rejection !== undefined) {
    lines.push(
      `Your last submission was rejected by ${rejection.by}. Feedback: ${rejection.feedback ?? ''}`,
      'Address the feedback, then submit again.',
    );
  }
  blocks.push({ text: lines.join('\n'), source });
  return blocks;
}

/** The rejection the checkpoint's current round answers (none once it was submitted again). */
function lastRejection(
  ledger: readonly CheckpointLedgerEntry[],
  id: string,
): CheckpointLedgerEntry | undefined {
  for (let i = ledger.length - 1; i >= 0; i--) {
    const entry = ledger[i]!;
    if (entry.checkpoint !== id) continue;
    return entry.kind === 'rejected' ? entry : undefined;
  }
  return undefined;
}
