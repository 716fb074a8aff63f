import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { ChatInfo, SessionView, StudioSession, TickSummary, TickView } from '../api-types.js';
import { api, watchChanges } from './api.js';
import { ChatPane } from './chat-pane.js';
import { PendingBox } from './pending-box.js';
import { SessionList } from './session-list.js';
import { SessionPanel } from './session-panel.js';
import { TickList } from './tick-list.js';
import { TickPanel } from './tick-panel.js';
import { measure } from './timings.js';

interface Opened {
  view: SessionView;
  ticks: TickSummary[];
}

/**
 * The page: sessions on the left, the chosen session's ticks in the middle, and on the right
 * either the session (its conversation, decisions waiting, ledger) or one tick.
 */
export function App() {
  const [sessions, setSessions] = useState<StudioSession[]>([]);
  const [status, setStatus] = useState('');
  const [connected, setConnected] = useState(false);
  // `agate studio --agent`: whom the chat pane talks to (null: no chat).
  const [chat, setChat] = useState<ChatInfo | null>(null);

  const fail = useCallback((error: unknown) => {
    setStatus(error instanceof Error ? error.message : String(error));
  }, []);
  const { opened, tick, openSession, openTick, reopen, closeSession } = useOpenedSession();

  const loadSessions = useCallback(async () => setSessions(await api.sessions()), []);

  const onOpenSession = useCallback(
    (id: string) => openSession(id).catch(fail),
    [openSession, fail],
  );
  // Stable, so that the tick rows (memoized) do not all re-render when one is opened.
  const onOpenTick = useCallback((n: number) => openTick(n).catch(fail), [openTick, fail]);

  const loadChat = useCallback(async () => setChat(await api.chatInfo()), []);

  const refresh = useCallback(
    async (sessionId: string) => {
      await Promise.all([loadSessions(), loadChat()]);
      await reopen(sessionId);
    },
    [loadSessions, loadChat, reopen],
  );

  useEffect(() => {
    loadSessions().catch(fail);
    loadChat().catch(fail);
    return watchChanges(
      () => setConnected(true),
      (sessionId) => {
        refresh(sessionId).catch(fail);
      },
    );
  }, [loadSessions, loadChat, refresh, fail]);

  const pending =
    opened === undefined ? null : (
      <PendingBox
        view={opened.view}
        onDecided={(said) => {
          setStatus(said);
          refresh(opened.view.id).catch(fail);
        }}
        onError={fail}
      />
    );

  return (
    <>
      <header>
        <b>Agate studio</b>
        <span id="live">{connected ? '● connected' : ''}</span>
        <span id="status" className="muted">
          {status}
        </span>
      </header>
      <SessionList sessions={sessions} selected={opened?.view.id} onOpen={onOpenSession} />
      <TickList ticks={opened?.ticks} selected={tick?.tick} onOpen={onOpenTick} />
      <main id="detail">
        {chat !== null && (
          <ChatPane
            info={chat}
            target={opened?.view}
            onSent={(id) => {
              setStatus('');
              loadChat().catch(fail);
              openSession(id).catch(fail);
            }}
            onNew={closeSession}
            onError={fail}
          />
        )}
        {opened === undefined ? (
          <p className="muted">
            {chat !== null
              ? 'Write to the agent above, or pick a session.'
              : 'Pick a session, then a tick.'}
          </p>
        ) : tick === undefined ? (
          <SessionPanel
            view={opened.view}
            ticks={opened.ticks.length}
            pending={pending}
            chatting={chat !== null}
          />
        ) : (
          <TickPanel tick={tick} pending={pending} />
        )}
      </main>
    </>
  );
}

/**
 * The open session and tick, and how to open them: only the answer to what the person asked
 * for last is shown (an older one arriving late is dropped). Timed for the page's measures.
 */
function useOpenedSession() {
  const [opened, setOpened] = useState<Opened>();
  const [tick, setTick] = useState<TickView>();
  // What the person asked for last: an answer for anything older is dropped.
  const wanted = useRef<{ id?: string; tick?: number }>({});

  /** Opens a session (and, after a change, the tick that was open). */
  const openSession = useCallback(async (id: string, keepTick?: number) => {
    measure.listStarts();
    wanted.current = { id, ...(keepTick !== undefined ? { tick: keepTick } : {}) };
    const [view, ticks, shown] = await Promise.all([
      api.session(id),
      api.ticks(id),
      keepTick !== undefined ? api.tick(id, keepTick) : undefined,
    ]);
    if (wanted.current.id !== id || wanted.current.tick !== keepTick) return;
    setOpened({ view, ticks });
    setTick(shown);
  }, []);

  const openTick = useCallback(async (n: number) => {
    const id = wanted.current.id;
    if (id === undefined) return;
    measure.tickStarts();
    wanted.current = { id, tick: n };
    const shown = await api.tick(id, n);
    if (wanted.current.id === id && wanted.current.tick === n) setTick(shown);
  }, []);

  useLayoutEffect(() => {
    if (opened !== undefined) measure.listShown(opened.ticks.length);
  }, [opened]);
  useLayoutEffect(() => {
    if (tick !== undefined) measure.tickShown(tick.tick);
  }, [tick]);

  /** After a change to `sessionId`: shows it again if it is the one open. */
  const reopen = useCallback(
    async (sessionId: string) => {
      const { id, tick: open } = wanted.current;
      if (id === sessionId) await openSession(id, open);
    },
    [openSession],
  );

  const closeSession = useCallback(() => {
    wanted.current = {};
    setOpened(undefined);
    setTick(undefined);
  }, []);

  return { opened, tick, openSession, openTick, reopen, closeSession };
}
