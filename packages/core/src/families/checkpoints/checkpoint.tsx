import type { ReactNode } from 'react';
import { useDeclaration } from '../../runtime/use-declaration.js';
import { checkCheckpointProps } from './checkpoint-props.js';
import { CHECKPOINT_FAMILY, type CheckpointProps } from './checkpoint-types.js';

/**
 * A boundary the agent cannot cross on its own. While it is the open checkpoint (the first not
 * approved, in tree order) the model is shown its task and offered `submit_checkpoint`; once it
 * is pending (submitted, budget used up, or trigger file written) no guarded tool runs and no
 * model call is made until a supervisor approves it. Renders nothing itself: the checkpoint
 * family (`guard.ts`) adds its instructions and tool, since only it knows which one is open.
 */
export function Checkpoint(props: CheckpointProps): ReactNode {
  // Validate on render so a bad budget or trigger fails where it is written.
  checkCheckpointProps(props);
  useDeclaration('<Checkpoint>', {
    kind: 'guard',
    family: CHECKPOINT_FAMILY,
    name: `${CHECKPOINT_FAMILY}:${props.id}`,
    config: props,
  });
  return null;
}
