import type { AgateEvent, AgateEventType, Session } from '@agate/core';
import { render } from 'ink';
import { RunView } from './live-view.js';
import { initialView, reduceView, type SessionFacts } from './view-state.js';

/** Events after which the session's gates and knobs are read again (they may exist unchanged). */
const FACT_EVENTS: ReadonlySet<AgateEventType> = new Set(['model:request', 'tick:end', 'run:end']);

export interface LiveView {
  dispatch(event: AgateEvent, session: Session): void;
  /** Renders the last frame and releases the terminal. */
  finish(): Promise<void>;
}

/** Mounts the Ink view on the terminal; the view itself is `reduceView` + `RunView`. */
export function startLiveView(stdout: NodeJS.WriteStream = process.stdout): LiveView {
  let view = initialView();
  // Ctrl-C stays a SIGINT the run command turns into an abort (status `aborted`, saved).
  const instance = render(<RunView view={view} />, { stdout, exitOnCtrlC: false });
  return {
    dispatch(event, session) {
      view = reduceView(view, event);
      if (FACT_EVENTS.has(event.type)) view = reduceView(view, sessionFacts(session));
      instance.rerender(<RunView view={view} />);
    },
    async finish() {
      instance.unmount();
      await instance.waitUntilExit();
    },
  };
}

/**
 * Gates and knobs as they are now: the rendered ones from the last compiled context (a gate
 * that starts deferred is engaged before any event mentions it), with the session state on
 * top (a gate cleared at tick end changed after that render).
 */
export function sessionFacts(session: Pick<Session, 'state' | 'context'>): SessionFacts {
  const { state, context } = session;
  const gates: SessionFacts['gates'] = {};
  for (const info of context?.gates ?? []) {
    const record = state.guards.gates.gates[info.name];
    gates[info.name] = {
      state: record?.state ?? info.state,
      blocks: record?.blocks ?? info.blocks,
      maxBlocks: info.maxBlocks,
    };
  }
  for (const [name, record] of Object.entries(state.guards.gates.gates)) {
    gates[name] ??= { state: record.state, blocks: record.blocks };
  }
  const knobs: SessionFacts['knobs'] = {};
  for (const info of context?.knobs ?? []) knobs[info.name] = info.value;
  const checkpoints: SessionFacts['checkpoints'] = {};
  for (const [id, record] of Object.entries(state.guards.checkpoints.records ?? {})) {
    checkpoints[id] = {
      state: record.state,
      ...(record.reason !== undefined ? { reason: record.reason } : {}),
    };
  }
  return {
    type: 'view:facts',
    gates,
    knobs: { ...knobs, ...state.guards.gates.knobs },
    checkpoints,
  };
}
