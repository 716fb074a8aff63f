import type { DecisionLine } from '../api-types.js';

/** Decisions as sentences, each with the JSON it was read from behind a toggle. */
export function DecisionList(props: { id: string; lines: DecisionLine[] }) {
  if (props.lines.length === 0) return <p className="muted">none</p>;
  return (
    <div id={props.id}>
      {props.lines.map((line, i) => (
        // Decisions have no id of their own; their order never changes.
        // biome-ignore lint/suspicious/noArrayIndexKey: the list is only ever replaced whole.
        <div key={i} className="decision">
          <span className="sentence">{line.sentence}</span>
          <details>
            <summary>JSON</summary>
            <pre>{line.json}</pre>
          </details>
        </div>
      ))}
    </div>
  );
}
