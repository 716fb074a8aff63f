import { ExitCode } from '../errors.js';
import { outputLines } from '../format/output.js';
import { formatTable, shortTime } from '../format/table.js';
import type { CliIo } from '../io.js';
import { checkpointSection } from '../sessions/checkpoints.js';
import { storedOutput } from '../sessions/output-answer.js';
import { loadStoredSession, openStore, type StoredSession } from '../sessions/stored-session.js';
import { briefMessage } from '../sessions/timeline-brief.js';

export interface ShowOptions {
  store: string;
  /** Timeline messages shown (the most recent). */
  messages: number;
}

/** `agate show <session>`: the session in brief. */
export async function showCommand(io: CliIo, id: string, options: ShowOptions): Promise<number> {
  const ref = await openStore(options.store);
  try {
    const stored = await loadStoredSession(ref, id);
    const restorePoints = (await ref.store.listRestorePoints?.(stored.state.id)) ?? [];
    const lines = restorePoints.map(
      (p) => `${p.ref}  saved ${shortTime(p.savedAt)}${p.label ? `  (${p.label})` : ''}`,
    );
    io.out(`${formatSession(stored, { messages: options.messages, restorePoints: lines })}\n`);
    return ExitCode.ok;
  } finally {
    await ref.close?.();
  }
}

export function formatSession(
  stored: StoredSession,
  options: { messages: number; restorePoints?: readonly string[] },
): string {
  const { snapshot, state } = stored;
  const { usage } = state;
  const lines: string[] = [
    stored.restorePointOf === undefined
      ? `session ${state.id}`
      : `restore point ${stored.ref ?? snapshot.id} of session ${stored.restorePointOf}`,
    `status: ${state.status}${state.reason ? ` — ${state.reason}` : ''}`,
    `ticks: ${state.tick}   tool calls: ${state.toolCalls}   tokens: ${usage.inputTokens} in + ${usage.outputTokens} out = ${usage.totalTokens}`,
    `saved: ${shortTime(snapshot.savedAt)}${snapshot.label ? ` (${snapshot.label})` : ''}`,
  ];

  const timeline = state.timeline;
  const shown = timeline.slice(-Math.max(0, options.messages));
  const first = timeline.length - shown.length;
  lines.push('', `Timeline (${timeline.length} message${timeline.length === 1 ? '' : 's'})`);
  if (first > 0) lines.push(`  … ${first} earlier (--messages ${timeline.length} shows all)`);
  shown.forEach((message, i) => {
    lines.push(`  ${String(first + i + 1).padStart(3)}  ${briefMessage(message)}`);
  });

  const gates = Object.entries(state.guards.gates?.gates ?? {});
  lines.push('', 'Gates');
  if (gates.length === 0) lines.push('  (none)');
  else {
    const rows = gates.map(([name, gate]) => [
      name,
      gate.state,
      gate.changedBy ? `by ${gate.changedBy} at tick ${gate.changedAtTick ?? '?'}` : '',
      gate.blocks > 0 ? `${gate.blocks} refusal${gate.blocks === 1 ? '' : 's'}` : '',
    ]);
    lines.push(indent(formatTable(['name', 'state', 'changed', 'refusals'], rows)));
  }

  const knobs = Object.entries(state.guards.gates?.knobs ?? {});
  lines.push('', 'Knobs');
  if (knobs.length === 0) lines.push('  (none)');
  else for (const [name, value] of knobs) lines.push(`  ${name} = ${JSON.stringify(value)}`);

  lines.push(...checkpointSection(state));

  if (options.restorePoints && options.restorePoints.length > 0) {
    lines.push('', 'Restore points (ContinueGate checkpoints)');
    for (const point of options.restorePoints) lines.push(`  ${point}`);
  }

  // The run's `<Output>` answer, printed as `agate run` prints it at the end of a run.
  const answer = storedOutput(state);
  if (answer !== undefined) lines.push('', ...outputLines(answer.value));
  return lines.join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
