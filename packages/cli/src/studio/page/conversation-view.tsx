import { useState } from 'react';
import type { ConversationMessage, ConversationPart } from '../api-types.js';

/**
 * The stored conversation. Open at once when it is all there is (no tick log); behind a toggle
 * otherwise, drawn only when opened (a long run's timeline must not slow the tick list down).
 */
export function ConversationView(props: { messages: ConversationMessage[]; folded: boolean }) {
  const [open, setOpen] = useState(!props.folded);
  const body = <Messages messages={props.messages} />;
  if (!props.folded) {
    return (
      <>
        <h2>Conversation ({props.messages.length} messages)</h2>
        {body}
      </>
    );
  }
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Conversation from the store ({props.messages.length} messages)</summary>
      {open && body}
    </details>
  );
}

function Messages(props: { messages: ConversationMessage[] }) {
  if (props.messages.length === 0) return <p className="muted">No messages yet.</p>;
  return (
    <div id="conversation">
      {props.messages.map((message, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a timeline's messages are positions, replaced whole.
        <div key={i} className={`message ${message.role}`} data-role={message.role}>
          <div className="role">{message.role}</div>
          {message.parts.map((part, j) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: parts are positions in one message.
            <Part key={j} part={part} />
          ))}
        </div>
      ))}
    </div>
  );
}

function Part({ part }: { part: ConversationPart }) {
  switch (part.kind) {
    case 'text':
      return <pre className="text">{part.text}</pre>;
    case 'reasoning':
      return <pre className="muted">reasoning: {part.text}</pre>;
    case 'tool-call':
      return (
        <div className="tool-call">
          → <b>{part.toolName}</b> <span className="muted">{part.callId}</span>
          <pre>{part.input}</pre>
        </div>
      );
    case 'tool-result':
      return (
        <div className={part.isError ? 'tool-result error' : 'tool-result'}>
          ← <b>{part.toolName}</b> <span className="muted">{part.callId}</span>
          {part.isError ? ' (error)' : ''}
          <pre>{part.output}</pre>
        </div>
      );
    default:
      return <span className="muted">({part.type})</span>;
  }
}
