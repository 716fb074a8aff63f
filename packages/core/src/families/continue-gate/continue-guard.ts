import { produce } from 'immer';
import type {
  BeforeModelVerdict,
  Guard,
  GuardHost,
  GuardTick,
  RunStartInfo,
  TickEndInfo,
} from '../../guard-seam/guard-family.js';
import { restorePointRef } from '../../persistence/session-store.js';
import { createSnapshot } from '../../persistence/snapshot.js';
import type { TickResult } from '../../state/tick-result.js';
import { type ContinueCheckOutcome, checkContinue } from './check-continue.js';
import { resolveContinueConfig } from './continue-gate-config.js';
import { ContinueGateEvaluator } from './continue-gate-evaluator.js';
import type { ContinueGateProps } from './continue-gate-props.js';
import { nextProgress } from './progress.js';
import { detectRework } from './rework.js';
import { SignatureIndex } from './signature-index.js';

const NO_SIGNATURES: readonly string[] = [];
const PROCEED: BeforeModelVerdict = { kind: 'proceed' };

function toVerdict(outcome: ContinueCheckOutcome): BeforeModelVerdict {
  return outcome.kind === 'end'
    ? { kind: 'end', status: outcome.status, reason: outcome.reason }
    : PROCEED;
}

/**
 * The ContinueGate family on the guard seam: the step bookkeeping it reads (kept in state for
 * every tick, so budgets hold when a gate is mounted later or the session resumes elsewhere),
 * the evaluation before each model call, and the checkpoints it saves.
 */
export class ContinueGuard implements Guard {
  readonly name = 'continue';
  private evaluatorEntry:
    | { key: string; props: ContinueGateProps; instance: ContinueGateEvaluator }
    | undefined;
  private readonly signatureIndex = new SignatureIndex();

  constructor(private readonly host: GuardHost) {}

  /** The ContinueGate's evaluator (history and stats for monitoring), once one is rendered. */
  get evaluator(): ContinueGateEvaluator | undefined {
    return this.evaluatorEntry?.instance;
  }

  private props(): ContinueGateProps | undefined {
    return this.host.registry.ofKind('continue')[0]?.config;
  }

  runStart(info: RunStartInfo): void {
    // After a pause or stop, calling run() is a person deciding to go on: the step count (and
    // the rework ratio over it) starts again; budgets and tick numbers carry over.
    if (!info.resumedByPerson) return;
    this.host.update((draft) => {
      draft.guards.continue.stepNumber = 0;
      draft.guards.continue.lastCheckpointStep = 0;
      draft.guards.continue.reworkCount = 0;
    });
  }

  beforeModelCall(tick: GuardTick): BeforeModelVerdict | Promise<BeforeModelVerdict> {
    const props = this.props();
    if (props === undefined) return PROCEED;
    const outcome = checkContinue({
      props,
      evaluator: this.evaluatorFor(props),
      state: this.host.state(),
      recentTicks: tick.recentTicks,
      tick: tick.tick,
      signal: tick.signal,
      emit: (event) => this.host.emit(event),
      saveCheckpoint: (step) => this.saveCheckpoint(step),
    });
    return outcome instanceof Promise ? outcome.then(toVerdict) : toVerdict(outcome);
  }

  tickEnd(_tick: GuardTick, result: TickResult, info: TickEndInfo): void {
    const base = this.host.state().guards.continue;
    const props = this.props();
    if (props === undefined) {
      // No ContinueGate rendered: steps, tokens and time still count (its budgets hold when one
      // is mounted later), but calls are not compared. Rework detection walks the recent calls'
      // signatures, the one part of this bookkeeping that grows with the run; it starts when a
      // gate is rendered.
      const progress = nextProgress(base, result.usage.totalTokens, {
        elapsedMs: info.elapsedMs,
        rework: false,
        signatures: NO_SIGNATURES,
      });
      this.host.assign('continue', progress);
      return;
    }
    const rework = detectRework(
      result,
      base.callSignatures,
      props.isRework,
      info.signatures,
      this.signatureIndex.of(base.callSignatures),
    );
    const progress = nextProgress(base, result.usage.totalTokens, {
      elapsedMs: info.elapsedMs,
      rework,
      signatures: info.signatures,
    });
    // Frozen whole by nextProgress: assigned without a draft.
    this.host.assign('continue', progress);
    const after = this.host.state().guards.continue.callSignatures;
    this.signatureIndex.advance(base.callSignatures, info.signatures, after);
  }

  private evaluatorFor(props: ContinueGateProps): ContinueGateEvaluator {
    // Same props object as last tick (the usual case): same config, nothing to compare.
    if (this.evaluatorEntry?.props === props) return this.evaluatorEntry.instance;
    const config = resolveContinueConfig(props);
    const key = JSON.stringify(config);
    if (this.evaluatorEntry?.key !== key) {
      // A changed config starts a fresh history: stats mixing two configs would mislead.
      this.evaluatorEntry = { key, props, instance: new ContinueGateEvaluator(config) };
    } else {
      this.evaluatorEntry.props = props;
    }
    return this.evaluatorEntry.instance;
  }

  private async saveCheckpoint(step: number): Promise<string> {
    // The snapshot records the checkpoint (so a session restored from it does not checkpoint
    // again at once), but the live state takes it only once the save succeeded: a failed save
    // must not count as a restore point. Restore points are keyed by session and tick (the
    // tick never repeats in a session's life), in the store's own restore-point space, so
    // they can never overwrite a session.
    const next = produce(this.host.state(), (draft) => {
      draft.guards.continue.lastCheckpointStep = step;
    });
    const tick = next.tick;
    const ref = restorePointRef(this.host.sessionId, tick);
    const store = this.host.store();
    if (store.saveRestorePoint === undefined) {
      this.host.warnOnce(
        'continue:no-restore-points',
        'restore-points-unsupported',
        'The session store has no saveRestorePoint, so ContinueGate restore points are not saved ' +
          '(a store written before restore points had their own key space). The run goes on.',
      );
    } else {
      const snapshot = createSnapshot(
        this.host.sessionId,
        next,
        `checkpoint at step ${step}, tick ${tick}`,
      );
      await store.saveRestorePoint(this.host.sessionId, tick, snapshot);
    }
    // Applied to the current state, not `next`: a host may have set a knob during the save.
    this.host.update((draft) => {
      draft.guards.continue.lastCheckpointStep = step;
    });
    return ref;
  }
}
