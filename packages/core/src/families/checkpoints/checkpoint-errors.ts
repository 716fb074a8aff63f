import { AgateError, nameErrorClass } from '../../ground/agate-error.js';

/** `<Checkpoint>` props that cannot work (an empty id, a budget that is not a positive whole number, ...). */
export class CheckpointDeclarationError extends AgateError {
  static {
    nameErrorClass(CheckpointDeclarationError, 'CheckpointDeclarationError');
  }
}
