import type { AgateUIMessage } from '@agate/core';

type Part = AgateUIMessage['parts'][number];

/** One message's parts: text, tool calls, and Agate's refusals, approvals and status. */
export function Parts(props: {
  message: AgateUIMessage;
  busy: boolean;
  onDecide: (checkpointId: string, decision: 'approve' | 'reject') => void;
}) {
  return (
    <>
      {props.message.parts.map((part, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: parts have no ids of their own; their order is stable.
        <PartView key={i} part={part} parts={props.message.parts} {...props} />
      ))}
    </>
  );
}

function PartView(props: {
  part: Part;
  parts: Part[];
  busy: boolean;
  onDecide: (checkpointId: string, decision: 'approve' | 'reject') => void;
}) {
  const { part } = props;
  if (part.type === 'text') return <p>{part.text}</p>;
  if (part.type === 'data-agate-gate') {
    return (
      <div className="refusal" role="status" style={banner('#fdecec', '#d33')}>
        Refused by {part.data.gates.join(', ')}: {part.data.reasons[0]}
      </div>
    );
  }
  if (part.type === 'data-agate-approval') {
    // Once a run took the decision, the checkpoint's own part says so: no buttons any more.
    const decided = props.parts.find(
      (p) => p.type === 'data-agate-checkpoint' && p.data.id === part.data.checkpointId,
    );
    if (decided?.type === 'data-agate-checkpoint' && decided.data.state !== 'pending') {
      return (
        <p className="decided" style={{ color: '#667', fontSize: 13 }}>
          Checkpoint {decided.data.id} {decided.data.state} by {decided.data.by}
        </p>
      );
    }
    return (
      <div className="approval" style={banner('#fff8df', '#e0b000')}>
        <p>
          Checkpoint <b>{part.data.checkpointId}</b> awaits your review: {part.data.summary}
        </p>
        <button
          type="button"
          disabled={props.busy}
          onClick={() => props.onDecide(part.data.checkpointId, 'approve')}
        >
          Approve
        </button>{' '}
        <button
          type="button"
          disabled={props.busy}
          onClick={() => props.onDecide(part.data.checkpointId, 'reject')}
        >
          Reject
        </button>
      </div>
    );
  }
  if (part.type === 'data-agate-status') {
    return (
      <p
        className="run-status"
        data-status={part.data.status}
        style={{ color: '#667', fontSize: 13 }}
      >
        run {part.data.status}
      </p>
    );
  }
  if (part.type.startsWith('tool-') && 'toolCallId' in part) {
    return (
      <p className="tool" style={{ color: '#446', fontSize: 13, fontFamily: 'monospace' }}>
        {part.type.slice('tool-'.length)} {part.state === 'output-available' ? '✓' : part.state}
      </p>
    );
  }
  return null;
}

function banner(background: string, border: string) {
  return { background, borderLeft: `4px solid ${border}`, padding: '6px 10px', margin: '6px 0' };
}
