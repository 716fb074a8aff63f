import type { AgateEvent, RunResult } from '@agate/core';
import { outputLines } from '../format/output.js';
import { asText, preview } from '../format/table.js';
import { PREVIEW_LENGTH } from './view-state.js';

/**
 * Off a terminal (CI, a pipe) the run is printed as plain lines, one fact per line, in event
 * order. The model's text is printed once per tick, when its reply is complete.
 */
export function createPlainPrinter(write: (text: string) => void): (event: AgateEvent) => void {
  const refused = new Set<string>();
  return (event) => {
    // Keyed with the path: a sub-agent's call ids may repeat its parent's.
    const key = (id: string) => `${(event.path ?? []).join(' › ')}|${id}`;
    if (event.type === 'tool:refused') refused.add(key(event.toolCallId));
    if (event.type === 'tool:result' && refused.delete(key(event.toolCallId))) return;
    const path = event.path ?? [];
    // A finish call's result (`final_answer`) is printed as the model read it: the core judges
    // the exit before that result goes out, so it already says `Final answer accepted.` or
    // `Not accepted: <reasons>`; relabelling it here would show something the model never saw.
    const lines = path.length === 0 ? plainLines(event) : subAgentLines(event);
    if (path.length === 0) {
      for (const line of lines) write(`${line}\n`);
      return;
    }
    // A sub-agent's lines: indented one level per path segment, each naming where it runs.
    const indent = '    '.repeat(path.length);
    const where = path.join(' › ');
    for (const line of lines) write(`${indent}[${where}] ${line.trimStart()}\n`);
  };
}

/** A sub-agent's event: as the parent's, but its start and end say which child it is. */
function subAgentLines(event: AgateEvent): string[] {
  if (event.type === 'run:start') {
    return [`sub-agent started${event.tick > 0 ? ` (resumed after tick ${event.tick})` : ''}`];
  }
  if (event.type === 'run:end') {
    return [`sub-agent ended ${event.status}${event.reason ? ` — ${event.reason}` : ''}`];
  }
  return plainLines(event);
}

/** The lines one event prints (none for most bookkeeping events). */
export function plainLines(event: AgateEvent): string[] {
  switch (event.type) {
    case 'run:start':
      return [
        `session ${event.sessionId}${event.tick > 0 ? ` (resumed after tick ${event.tick})` : ''}`,
      ];
    case 'tick:start':
      return [`── tick ${event.tick} ──`];
    case 'model:response':
      return event.text.trim() === '' ? [] : [`  model: ${indentLines(event.text.trim(), 9)}`];
    case 'tool:call':
      return [`  → ${event.toolName} ${preview(asText(event.input), PREVIEW_LENGTH)}`];
    case 'tool:result':
      return [
        `  ${event.isError ? '✗' : '←'} ${event.toolName}: ${preview(asText(event.output), PREVIEW_LENGTH)}`,
      ];
    case 'tool:refused':
      return [`  ⊘ ${event.toolName} refused by ${event.by}: ${event.message}`];
    case 'tool:held':
      return [
        `  ⏸ ${event.toolName} awaiting approval (call ${event.toolCallId}): ${event.reason}`,
      ];
    case 'gate:activated':
    case 'gate:deferred':
    case 'gate:cleared': {
      const to =
        event.type === 'gate:activated'
          ? 'active'
          : event.type === 'gate:deferred'
            ? 'deferred'
            : 'inactive';
      return [`  gate ${event.gate}: ${event.from} → ${to} (by ${event.by})`];
    }
    case 'knob:changed':
      return [`  knob ${event.knob} = ${JSON.stringify(event.value)} (by ${event.by})`];
    case 'exit:blocked':
      return [
        `  exit refused${event.final ? ' (final: the run ends blocked)' : ''}:`,
        ...event.reasons.flatMap((r) => r.split('\n')).map((line) => `    ${line}`),
      ];
    case 'continue:evaluated':
      return event.evaluation.decision === 'continue'
        ? []
        : [`  ContinueGate: ${event.evaluation.decision} — ${event.evaluation.reasons.join('; ')}`];
    case 'continue:throttled':
      return [`  ContinueGate: waiting ${event.cooldownMs} ms (throttle)`];
    case 'checkpoint:saved':
      return [`  restore point ${event.snapshotId} saved (step ${event.step})`];
    case 'checkpoint:submitted':
      return [`  checkpoint ${event.id} submitted: ${event.summary}`];
    case 'checkpoint:pending':
      return [`  checkpoint ${event.id} pending (${event.cause}): ${event.reason}`];
    case 'checkpoint:approved':
      return [
        `  checkpoint ${event.id} approved by ${event.by}${event.note ? `: ${event.note}` : ''}`,
      ];
    case 'checkpoint:rejected':
      return [`  checkpoint ${event.id} rejected by ${event.by}: ${event.feedback}`];
    case 'warning':
      return [`  warning (${event.code}): ${event.message}`];
    default:
      return [];
  }
}

/** The end of a run: status and why, ticks, token usage, and `<Output>`'s object (pretty JSON). */
export function resultLines(result: RunResult): string[] {
  const { usage } = result;
  return [
    `status: ${result.status}${result.reason ? ` — ${result.reason}` : ''}`,
    `ticks: ${result.ticks} (session total ${result.totalTicks})`,
    `tokens: ${usage.inputTokens} in + ${usage.outputTokens} out = ${usage.totalTokens}`,
    ...outputLines(result.output),
  ];
}

function indentLines(text: string, by: number): string {
  return text.replaceAll('\n', `\n${' '.repeat(by)}`);
}
