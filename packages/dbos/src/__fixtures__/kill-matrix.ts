import type { StepPhase } from '../step-probe.js';

/**
 * The kill matrix's cells. A cell is one durable run of the matrix agent whose worker is
 * SIGKILLed once, at one point: before, during or after one of its steps, or while it waits
 * for a decision. Its session id names the point and when the decision of the wait the kill
 * falls in is made: `before` the kill, while `nobody` runs a worker, or `after` the restart.
 */
export type DecisionTime = 'before' | 'nobody' | 'after';

export interface Cell {
  sessionId: string;
  /** A step point, or the wait (1 or 2) the run is killed in. */
  point: { index: number; phase: StepPhase } | { wait: 1 | 2 };
  decision: DecisionTime;
  /** The wait whose decision is held back until the kill (nobody / after), if any. */
  heldWait?: 1 | 2;
}

/** The matrix agent's steps, in order (what the uninterrupted run records). */
export const MATRIX_STEPS = [
  'agate:start',
  'agate:model', // tick 1: calls work
  'agate:tool', // work
  'agate:model', // tick 2: submits T-1 (a runtime tool: no step)
  'agate:end', // waits for T-1's decision (wait 1)
  'agate:resume',
  'agate:model', // tick 3: calls drop, which is held
  'agate:end', // waits for drop's approval (wait 2)
  'agate:resume',
  'agate:tool', // drop, approved
  'agate:model', // tick 4: answers
  'agate:end', // completed
] as const;

/** Index of the `agate:end` step that starts each wait. */
const WAIT_END = { 1: 4, 2: 7 } as const;

const PHASES: readonly StepPhase[] = ['before', 'during', 'after'];

/** Every cell: each step × each phase, plus the kills around the two waits × decision times. */
export function matrixCells(): Cell[] {
  const cells: Cell[] = [];
  MATRIX_STEPS.forEach((_, index) => {
    for (const phase of PHASES) {
      // A kill while the end of a wait is being (or has been) recorded: the wait's decision can
      // come before the kill, while no worker runs, or after the restart.
      const wait = ([1, 2] as const).find(
        (w) => WAIT_END[w] === index && (phase === 'during' || phase === 'after'),
      );
      const times: readonly DecisionTime[] =
        wait === undefined ? ['before'] : ['before', 'nobody', 'after'];
      for (const decision of times) {
        cells.push({
          sessionId: `m-${index}-${phase}-${decision}`,
          point: { index, phase },
          decision,
          ...(decision !== 'before' && wait !== undefined ? { heldWait: wait } : {}),
        });
      }
    }
  });
  for (const wait of [1, 2] as const) {
    for (const decision of ['nobody', 'after'] as const) {
      cells.push({
        sessionId: `m-w${wait}-${decision}`,
        point: { wait },
        decision,
        heldWait: wait,
      });
    }
  }
  return cells;
}

/** The step point a session's worker parks at, from its session id (undefined: none). */
export function killPointOf(sessionId: string): { index: number; phase: StepPhase } | undefined {
  const match = /^m-(\d+)-(before|during|after)-/.exec(sessionId);
  if (match === null) return undefined;
  return { index: Number(match[1]), phase: match[2] as StepPhase };
}

/** The session id inside a run id (`agate/<session>/<unique>`). */
export function sessionOfRun(workflowId: string): string {
  return workflowId.split('/')[1] ?? '';
}
