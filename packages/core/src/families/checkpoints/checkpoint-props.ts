import { CheckpointDeclarationError } from './checkpoint-errors.js';
import type { CheckpointProps } from './checkpoint-types.js';

/** Throws a `CheckpointDeclarationError` naming the prop when a `<Checkpoint>` cannot work. */
export function checkCheckpointProps(props: CheckpointProps): void {
  const where = `<Checkpoint id=${JSON.stringify(props.id)}>`;
  if (typeof props.id !== 'string' || props.id.trim() === '') {
    throw new CheckpointDeclarationError(
      `<Checkpoint> needs an id: a non-empty string the model submits it by (for example "T-1").`,
    );
  }
  if (
    props.budget !== undefined &&
    (!Number.isSafeInteger(props.budget) || (props.budget as number) < 1)
  ) {
    throw new CheckpointDeclarationError(
      `${where}: budget must be a whole number of ticks >= 1, got ${String(props.budget)}.`,
    );
  }
  if (
    props.guards !== undefined &&
    (!Array.isArray(props.guards) || props.guards.some((g) => typeof g !== 'string'))
  ) {
    throw new CheckpointDeclarationError(
      `${where}: guards must be a list of tool names (leave it out to guard every tool).`,
    );
  }
  if (
    props.trigger !== undefined &&
    (typeof props.trigger.fileWritten !== 'string' || props.trigger.fileWritten === '')
  ) {
    throw new CheckpointDeclarationError(
      `${where}: trigger.fileWritten must be a path relative to the workspace.`,
    );
  }
  if (props.workspace !== undefined && typeof props.workspace !== 'string') {
    throw new CheckpointDeclarationError(`${where}: workspace must be a directory path.`);
  }
}
