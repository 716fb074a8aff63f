import type { ReactNode } from 'react';
import type { TickView } from '../api-types.js';
import { DecisionList } from './decision-list.js';
import { DiffView } from './diff-view.js';
import { KeyValues } from './kv.js';

/** One tick: the context as the model saw it (a diff), the reply, the calls, the decisions. */
export function TickPanel(props: { tick: TickView; pending: ReactNode }) {
  const t = props.tick;
  return (
    <section id="tick">
      {props.pending}
      <h1>Tick {t.tick}</h1>
      <h2>
        {t.diff !== undefined
          ? `Context: changes since tick ${t.previousTick}`
          : 'Context (first kept tick)'}
      </h2>
      <DiffView diff={t.diff} lines={t.lines} />
      <details>
        <summary>Whole context as the model saw it ({t.lines.length} lines)</summary>
        <pre id="context">{t.lines.join('\n')}</pre>
      </details>
      <h2>Reply</h2>
      <pre id="reply">{t.reply.text || '(no text)'}</pre>
      {t.reply.reasoning ? <pre className="muted">reasoning: {t.reply.reasoning}</pre> : null}
      <h2>Tool calls</h2>
      {t.calls.length === 0 ? (
        <p className="muted">none</p>
      ) : (
        <div id="calls">
          {t.calls.map((c, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a tick's calls are positions, replaced whole.
            <div key={i}>
              <h3>
                {c.toolName}
                {c.refusedBy ? ` — refused by ${c.refusedBy}` : c.isError ? ' — error' : ''}
              </h3>
              <KeyValues
                rows={[
                  ['input', c.input],
                  ['output', c.output ?? '(none)'],
                ]}
              />
            </div>
          ))}
        </div>
      )}
      <h2>Gates and knobs</h2>
      <KeyValues
        rows={[
          ['gates', t.gates],
          ['knobs', t.knobs],
        ]}
      />
      <h2>Guard decisions</h2>
      <DecisionList id="decisions" lines={t.decisions} />
      <h2>Budget, usage and timing</h2>
      <KeyValues
        rows={[
          ['pruned', t.pruned ?? 'nothing left out'],
          ['usage', t.reply.usage ?? '(no model call)'],
          ['finish', t.reply.finishReason ?? '—'],
          ['started', t.startedAt],
          ['duration', `${t.durationMs} ms`],
        ]}
      />
    </section>
  );
}
