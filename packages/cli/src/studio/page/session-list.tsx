import type { StudioSession } from '../api-types.js';

/** The sessions of the store (the live run first), newest first. */
export function SessionList(props: {
  sessions: StudioSession[];
  selected: string | undefined;
  onOpen: (id: string) => void;
}) {
  return (
    <nav id="sessions" aria-label="sessions">
      {props.sessions.map((s) => (
        <button
          type="button"
          key={s.id}
          className={s.id === props.selected ? 'session selected' : 'session'}
          data-id={s.id}
          onClick={() => props.onOpen(s.id)}
        >
          {s.id}
          <small>
            {`${s.status} · ${s.ticks} ticks`}
            {s.live ? ' · live' : ''}
            {s.pending.length > 0 || s.pendingCalls.length > 0 ? ' · awaiting approval' : ''}
          </small>
        </button>
      ))}
    </nav>
  );
}
