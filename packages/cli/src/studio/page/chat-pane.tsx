import { useState } from 'react';
import type { ChatInfo, SessionView } from '../api-types.js';
import { api } from './api.js';

/**
 * A session that did not complete can go on from its stored state ("Go on"): one held for a
 * person and since decided (`idle`), paused, interrupted, stopped at its tick limit.
 */
const canGoOn = (view: SessionView) => !view.live && view.status !== 'completed';

/**
 * `agate studio --agent`: a message for the agent, to the open session or a new one. The run
 * goes on in the studio's process; its ticks appear in the list as they happen, and the held
 * calls and checkpoints wait in the box above the conversation.
 */
export function ChatPane(props: {
  info: ChatInfo;
  /** The open session, which a message goes on with; none: a new conversation. */
  target: SessionView | undefined;
  onSent: (sessionId: string) => void;
  onNew: () => void;
  onError: (error: unknown) => void;
}) {
  const { info, target } = props;
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const running = info.running !== undefined;
  const send = (body: { sessionId?: string; text?: string }) => {
    setSending(true);
    api
      .chat(body)
      .then((started) => {
        if (body.text !== undefined) setText('');
        props.onSent(started.sessionId);
      }, props.onError)
      .finally(() => setSending(false));
  };
  const failed =
    info.lastError !== undefined && info.lastError.sessionId === target?.id
      ? info.lastError.message
      : undefined;
  return (
    <section id="chat">
      <div>
        <b>Talk to {info.agent}</b> <span className="muted">({info.model})</span>
      </div>
      <div id="chat-target" className="muted">
        {target === undefined
          ? 'A new conversation.'
          : `Goes on with session ${target.id} (${target.live ? 'running now' : target.status}).`}
        {running ? ` A run is in progress (${info.running}): wait for its end.` : ''}
      </div>
      {failed !== undefined && (
        <div id="chat-error" className="error">
          The last run failed: {failed}
        </div>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const message = text.trim();
          if (message === '') return;
          send({ ...(target !== undefined ? { sessionId: target.id } : {}), text: message });
        }}
      >
        <textarea
          id="chat-message"
          rows={3}
          maxLength={info.maxMessageChars}
          placeholder="Your message to the agent"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <div>
          <button id="chat-send" type="submit" disabled={sending || running || text.trim() === ''}>
            Send
          </button>{' '}
          {target !== undefined && canGoOn(target) && (
            <button
              id="chat-go-on"
              type="button"
              disabled={sending || running}
              onClick={() => send({ sessionId: target.id })}
            >
              Go on (after the decisions)
            </button>
          )}{' '}
          {target !== undefined && (
            <button id="chat-new" type="button" onClick={props.onNew}>
              New conversation
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
