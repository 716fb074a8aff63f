/** `<Checkpoint trigger>`: the checkpoint goes pending when this file is written. */
export interface CheckpointTrigger {
  /** A path relative to the checkpoint's `workspace` (default: the process's working directory). */
  fileWritten: string;
}

/**
 * Props of `<Checkpoint>`: a point the agent reaches, then waits at until a supervisor approves
 * it.
 */
export interface CheckpointProps {
  /** Unique among the checkpoints; the model submits it by this id (`submit_checkpoint`). */
  id: string;
  /** What the agent must do before submitting; shown to the model while the checkpoint is open. */
  task?: string;
  /** Ticks the checkpoint may stay open without a submit before it goes pending by itself. Default 15. */
  budget?: number;
  /** Tools refused while it is pending. Default: every tool (except `submit_checkpoint`). */
  guards?: readonly string[];
  /** Goes pending as soon as a tool call leaves this file created or changed. */
  trigger?: CheckpointTrigger;
  /** Directory `trigger.fileWritten` is relative to. Default: `process.cwd()`. */
  workspace?: string;
}

export const DEFAULT_CHECKPOINT_BUDGET = 15;

/** The family name in the DeclarationRegistry (`registry.ofFamily('checkpoint')`). */
export const CHECKPOINT_FAMILY = 'checkpoint';
