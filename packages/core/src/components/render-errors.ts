import { AgateError, nameErrorClass } from '../ground/agate-error.js';

/** A JSX element the renderer cannot turn into model context (for example a DOM tag). */
export class InvalidElementError extends AgateError {
  static {
    nameErrorClass(InvalidElementError, 'InvalidElementError');
  }
}

/** A component threw while rendering the agent tree. */
export class RenderError extends AgateError {
  static {
    nameErrorClass(RenderError, 'RenderError');
  }
}

/** Two rendered `<Tool>`s share a name, so the model could not tell them apart. */
export class DuplicateToolError extends AgateError {
  static {
    nameErrorClass(DuplicateToolError, 'DuplicateToolError');
  }
}
