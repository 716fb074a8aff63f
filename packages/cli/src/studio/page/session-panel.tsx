import type { ReactNode } from 'react';
import type { SessionView } from '../api-types.js';
import { ConversationView } from './conversation-view.js';
import { DecisionList } from './decision-list.js';
import { KeyValues } from './kv.js';

/** A session as the store holds it: status, what waits, the conversation and the ledger. */
export function SessionPanel(props: {
  view: SessionView;
  ticks: number;
  pending: ReactNode;
  /** The chat pane is on: the conversation is what the person follows, so it is open. */
  chatting?: boolean;
}) {
  const { view, ticks } = props;
  return (
    <section id="session">
      <h1>{view.id}</h1>
      {props.pending}
      <KeyValues
        rows={[
          ['status', view.status],
          ...(view.reason !== undefined ? [['reason', view.reason] as const] : []),
          ['ticks', String(view.ticks)],
          ['saved', view.live ? 'running now' : (view.savedAt ?? '—')],
          ...(view.usage !== undefined
            ? [['tokens', `${view.usage.inputTokens} in, ${view.usage.outputTokens} out`] as const]
            : []),
        ]}
      />
      <p className="muted" id="tick-log-note">
        {ticks > 0
          ? `${ticks} ticks recorded: pick one for what the model saw, its diff and its guard decisions.`
          : 'This session kept no tick log (run it with tickLog, or agate run --studio): below is its conversation as the store keeps it.'}
      </p>
      <ConversationView messages={view.messages} folded={ticks > 0 && props.chatting !== true} />
      <h2>Checkpoints and approvals (the ledger)</h2>
      <DecisionList id="ledger" lines={view.ledger} />
    </section>
  );
}
