import { memo } from 'react';
import type { TickSummary } from '../api-types.js';

/** The session's kept ticks, one row each (a 1,000-tick log is one table). */
export function TickList(props: {
  ticks: TickSummary[] | undefined;
  selected: number | undefined;
  onOpen: (tick: number) => void;
}) {
  return (
    <div id="tick-list">
      {props.ticks?.length === 0 && (
        <p className="muted pad">No tick log: the session is on the right.</p>
      )}
      <table>
        <tbody id="ticks">
          {props.ticks?.map((t) => (
            <TickRow
              key={t.tick}
              tick={t}
              selected={t.tick === props.selected}
              onOpen={props.onOpen}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A row re-renders only when it is (de)selected: opening a tick restyles two rows, not all. */
const TickRow = memo(function TickRow(props: {
  tick: TickSummary;
  selected: boolean;
  onOpen: (tick: number) => void;
}) {
  const t = props.tick;
  const open = () => props.onOpen(t.tick);
  return (
    <tr
      className={`tick${t.refused ? ' refused' : ''}${props.selected ? ' selected' : ''}`}
      data-tick={t.tick}
      tabIndex={0}
      aria-selected={props.selected}
      onClick={open}
      onKeyDown={(event) => {
        if (event.key === 'Enter' || event.key === ' ') open();
      }}
    >
      <td>#{t.tick}</td>
      <td>{t.calls.length > 0 ? t.calls.join(', ') : t.reply || '—'}</td>
      <td className="muted">{Math.round(t.durationMs)} ms</td>
    </tr>
  );
});
