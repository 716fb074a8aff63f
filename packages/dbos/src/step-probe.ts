/** Where a durable run is, relative to one of its steps. */
export type StepPhase = 'before' | 'during' | 'after';

export interface StepPoint {
  workflowId: string;
  /** The step's name (`agate:model`, `agate:end`, …). */
  step: string;
  /** The step's place among the run's own steps (0: `agate:start`), the same in every replay. */
  index: number;
  /**
   * `before`: the step is about to start; `during`: its work is done (the call made, the save
   * written) and its answer not yet recorded; `after`: its answer is recorded.
   */
  phase: StepPhase;
}

/**
 * Called at each of those points; the run waits for the promise it returns. Internal (not in the
 * package's index): the kill-matrix tests stop a worker at an exact point with it.
 */
export type StepProbe = (point: StepPoint) => void | Promise<void>;

let probe: StepProbe | undefined;

export function setStepProbe(next: StepProbe | undefined): void {
  probe = next;
}

/** The probe, if one is set (undefined costs the run nothing but this read). */
export function stepProbe(): StepProbe | undefined {
  return probe;
}
