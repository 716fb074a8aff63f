import { useState } from 'react';
import type { SessionView } from '../api-types.js';
import { api } from './api.js';

/**
 * What waits for a person: pending checkpoints, and tool calls held for approval with their
 * whole input (scrollable, never cut) and the digest the decision is signed over.
 */
export function PendingBox(props: {
  view: SessionView;
  onDecided: (said: string) => void;
  onError: (error: unknown) => void;
}) {
  const { view } = props;
  const [by, setBy] = useState('');
  const [text, setText] = useState('');
  if (view.pending.length === 0 && view.pendingCalls.length === 0) return null;
  const decide = (what: string, body: Record<string, string>, said: string) => () => {
    api
      .decide(view.id, what, body)
      .then(
        (result) =>
          props.onDecided(
            `${said} (ledger #${result.seq}, ${result.signed ? 'signed' : 'unsigned'})`,
          ),
        props.onError,
      );
  };
  return (
    <div className="pending" id="pending">
      <b>Awaiting approval</b>
      <div>
        Decide as:{' '}
        <input id="by" placeholder="your name" value={by} onChange={(e) => setBy(e.target.value)} />{' '}
        <input
          id="feedback"
          placeholder="feedback (to reject) or reason (to deny)"
          size={34}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
      </div>
      {view.pending.map((p) => {
        const at = `checkpoints/${encodeURIComponent(p.id)}/`;
        return (
          <div key={p.id} className="held" data-checkpoint={p.id}>
            <b>{p.id}</b> <span className="muted">{p.reason ?? ''}</span>{' '}
            <button
              type="button"
              className="approve"
              onClick={decide(`${at}approve`, { by }, `Approved ${p.id}`)}
            >
              Approve
            </button>
            <button
              type="button"
              className="reject"
              onClick={decide(`${at}reject`, { by, feedback: text }, `Rejected ${p.id}`)}
            >
              Reject
            </button>
          </div>
        );
      })}
      {view.pendingCalls.map((c) => {
        const at = `tool-calls/${encodeURIComponent(c.id)}/`;
        return (
          <div key={c.id} className="held" data-tool-call={c.id}>
            <div>
              <b>{c.toolName}</b>{' '}
              <span className="muted">
                {c.id} · tick {c.tick}
                {c.reason ? ` · ${c.reason}` : ''}
              </span>
            </div>
            {/* The model's input, whole: a dangerous tail must not hide past a cut. */}
            <pre className="call-input">{c.input}</pre>
            <div className="digest muted">
              {c.digest !== undefined
                ? `input sha256 ${c.digest} (what the decision is signed over)`
                : 'no approval request in the ledger for this call: a decision will be refused'}
              {` · ${c.input.length.toLocaleString('en')} characters, shown whole`}
            </div>
            <button
              type="button"
              className="approve"
              onClick={decide(`${at}approve`, { by }, `Approved ${c.toolName} ${c.id}`)}
            >
              Approve
            </button>
            <button
              type="button"
              className="deny"
              onClick={decide(`${at}deny`, { by, reason: text }, `Denied ${c.toolName} ${c.id}`)}
            >
              Deny
            </button>
          </div>
        );
      })}
    </div>
  );
}
