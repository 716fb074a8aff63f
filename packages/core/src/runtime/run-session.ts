import type { AgateError } from '../ground/agate-error.js';
import { errorMessage } from '../ground/thrown.js';
import { familyReport } from '../guard-seam/built-in-family-api.js';
import type { RunStatus } from '../state/session-state.js';
import { SessionStateError } from '../state/session-state-error.js';
import { loadOtel } from '../telemetry/otel-api.js';
import { abortedReason, neverAbortedSignal } from './abort.js';
import { runFault } from './fault.js';
import { checkRunLimits } from './option-checks.js';
import { claimRun } from './run-claim.js';
import type { SessionCore } from './session-core.js';
import type { RunOptions, RunResult } from './session-options.js';
import { endAtMaxTicks } from './tick/attempt-exit.js';
import { runAtomicTick } from './tick/run-tick.js';

const DEFAULT_MAX_TICKS = 25;

/**
 * Run ends that wait for a person, possibly in another process: the session is saved where
 * they look. `store`: only when `options.store` is given; `always`: the default store otherwise.
 */
const SAVE_AT_END: Partial<Record<RunStatus, 'store' | 'always'>> = {
  paused: 'store',
  'awaiting-approval': 'always',
};

/**
 * `session.run()`: ticks until the model finishes (and every guard lets it), a guard ends the
 * run, or `maxTicks` is reached; then closes what components opened, saves the end where a
 * person will look for it, and builds the `RunResult`. A stored session is claimed first
 * (runtime/run-claim.ts).
 */
export async function runSession<O>(
  core: SessionCore,
  options: RunOptions = {},
): Promise<RunResult<O>> {
  core.assertUsable();
  if (core.running) {
    throw new SessionStateError(
      'run() is already in progress on this session; await it (or abort it) before starting another.',
    );
  }
  checkRunLimits(options);
  core.running = true;
  let claimed: boolean;
  try {
    claimed = await claimRun(core, options);
  } catch (error) {
    core.running = false;
    throw error;
  }
  const maxTicks = options.maxTicks ?? core.options.maxTicks ?? DEFAULT_MAX_TICKS;
  const signal = options.signal ?? core.options.signal ?? neverAbortedSignal();
  const startTick = core.state.tick;
  const last = core.state.status;
  let end: { status: RunStatus; reason?: string; error?: AgateError } | undefined;
  try {
    core.budget.forRun(options.context);
    core.guards.runStart({ resumedByPerson: last === 'paused' || last === 'stopped' });
    // A shallow copy, not an immer draft: two fields of the top level (what `update` would
    // produce, at a fraction of its cost in a short run).
    const { reason: _previous, ...rest } = core.state;
    core.state = Object.freeze({ ...rest, status: 'running' });
    // The OpenTelemetry API loads when this run may trace (telemetry/otel-api.ts).
    if (core.tracing.needsOtel()) await loadOtel();
    // Inside the try: a throwing listener must not leave the session marked as running.
    core.emit({ type: 'run:start', sessionId: core.id, tick: startTick });
    for (let i = 0; i < maxTicks && end === undefined; i++) {
      signal.throwIfAborted();
      const outcome = await runAtomicTick(core, signal);
      if (outcome.done) end = { status: outcome.status, reason: outcome.reason };
    }
    end ??= endAtMaxTicks(core, maxTicks);
  } catch (error) {
    if (signal.aborted) {
      end = {
        status: 'aborted',
        reason: abortedReason(
          signal,
          options.signal === undefined && core.options.signal === signal,
        ),
      };
    } else {
      end = { status: 'error', ...runFault(error, core.state.tick + 1) };
      if (end.error !== undefined) core.tracing.failed(end.error);
    }
  } finally {
    core.running = false;
    // Idle from here: the recent ticks stay as records over the timeline's messages.
    core.ticks.release();
  }
  // Nothing a component opened outlives the run (child processes, sockets).
  await core.closeResources();

  const { status, error } = end;
  let { reason } = end;
  core.state = Object.freeze({
    ...core.state,
    status,
    ...(reason !== undefined ? { reason } : {}),
  });
  const save = SAVE_AT_END[status];
  // A claimed run always saves its end: that releases the claim.
  if (claimed || save === 'always' || (save === 'store' && core.options.store !== undefined)) {
    try {
      await core.saveToStore(core.snapshot(status));
    } catch (saveError) {
      // Still resumable here (run() goes on), but a person looking in the store would not find it.
      const problem = `Saving the ${status} session to the store failed: ${errorMessage(saveError)}`;
      core.emit({
        type: 'warning',
        tick: core.state.tick,
        code: `${status === 'paused' ? 'pause' : status}-save-failed`,
        message: problem,
      });
      reason = `${reason ?? ''} ${problem}`.trim();
      const updated = reason;
      core.update((draft) => {
        draft.reason = updated;
      });
    }
  }
  const ticks = core.state.tick - startTick;
  const report = familyReport(core.guards);
  core.emit({
    type: 'run:end',
    status,
    ...(reason !== undefined ? { reason } : {}),
    ticks,
    ...(report.output !== undefined ? { output: report.output } : {}),
  });
  // The tick log's last records are in the store when run() returns (a no-op without one).
  await core.tickLogWrites;
  // Idle from here: what only a running tick needs goes (issue 42's light sessions).
  core.requestForms.clear();
  const result: RunResult = {
    status,
    ...(reason !== undefined ? { reason } : {}),
    ticks,
    totalTicks: core.state.tick,
    text: core.state.text,
    timeline: core.state.timeline,
    usage: core.state.usage,
    ...(core.lastFinishReason !== undefined ? { finishReason: core.lastFinishReason } : {}),
    ...report,
    events: core.events.take(),
    ...(error !== undefined ? { error } : {}),
  };
  // `output` was checked against the <Output> schema the caller typed `O` after.
  return result as RunResult<O>;
}
