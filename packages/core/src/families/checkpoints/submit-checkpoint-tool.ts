import { z } from 'zod';
import type { CompiledTool } from '../../renderer/compiled-context.js';

export const SUBMIT_CHECKPOINT_TOOL = 'submit_checkpoint';

export const submitCheckpointInput = z.object({
  id: z.string().describe('The id of the open checkpoint.'),
  summary: z
    .string()
    .describe('What you did for it and how you checked it, for the supervisor who reviews it.'),
});

export type SubmitCheckpointInput = z.infer<typeof submitCheckpointInput>;

/**
 * The runtime's submit tool. Its description names no checkpoint (so it stays byte-identical
 * between ticks for provider prompt caches); the open checkpoint's id is in its instructions.
 */
export function createSubmitTool(submit: (input: SubmitCheckpointInput) => string): CompiledTool {
  return {
    name: SUBMIT_CHECKPOINT_TOOL,
    description:
      'Submit the open checkpoint for supervisor review once its task is done. After this call ' +
      'nothing else runs until a supervisor approves it (or rejects it with feedback).',
    inputSchema: submitCheckpointInput,
    execute: ((input: SubmitCheckpointInput) => submit(input)) as CompiledTool['execute'],
    source: 'runtime',
  };
}
