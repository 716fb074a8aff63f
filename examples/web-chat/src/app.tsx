import type { AgateUIMessage } from '@agate/core';
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { type FormEvent, useState } from 'react';
import { Parts } from './parts.js';

/** The page: useChat as the AI SDK ships it; Agate's data parts drawn by <Parts>. */
export function App() {
  const { messages, sendMessage, status, error, id } = useChat<AgateUIMessage>({
    transport: new DefaultChatTransport({ api: '/api/chat' }),
  });
  const [input, setInput] = useState('Fix add() in math.js');
  const [decisionError, setDecisionError] = useState<string>();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (input.trim() === '') return;
    void sendMessage({ text: input });
    setInput('');
  };

  /** Decided on the server (which holds the key); then the run goes on past the checkpoint. */
  const decide = async (checkpointId: string, decision: 'approve' | 'reject') => {
    const response = await fetch('/api/decide', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chatId: id, checkpointId, decision }),
    });
    if (!response.ok) {
      setDecisionError(((await response.json()) as { error: string }).error);
      return;
    }
    setDecisionError(undefined);
    await sendMessage();
  };

  return (
    <main style={{ maxWidth: 720, margin: '24px auto', font: '15px/1.45 system-ui, sans-serif' }}>
      <h1 style={{ fontSize: 20 }}>Agate web chat</h1>
      {messages.map((message) => (
        <article
          key={message.id}
          className={`message ${message.role}`}
          style={{ margin: '12px 0' }}
        >
          <b>{message.role === 'user' ? 'You' : 'Agent'}</b>
          <Parts message={message} busy={status !== 'ready'} onDecide={decide} />
        </article>
      ))}
      {error && <p role="alert">{error.message}</p>}
      {decisionError && <p role="alert">{decisionError}</p>}
      <form onSubmit={submit} style={{ display: 'flex', gap: 8 }}>
        <input
          aria-label="message"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          style={{ flex: 1, font: 'inherit', padding: 6 }}
        />
        <button type="submit" disabled={status !== 'ready'}>
          Send
        </button>
      </form>
    </main>
  );
}
