import {
  type EventListener,
  Gate,
  gate,
  type RunResult,
  run,
  Section,
  System,
  type TickResult,
  Timeline,
  User,
} from '@agate/core';
import { FileTools } from '@agate/example-kit';
import type { LanguageModel } from 'ai';
import { workspace } from './workspace.js';

export const TASK =
  'Read every note under notes/ and write SUMMARY.md at the workspace root: one section per note ' +
  'with its key points as bullets. Then reply with a one-line confirmation.';

/** Did this tick write SUMMARY.md (at the workspace root) successfully? */
function wroteSummary(tick: TickResult): boolean {
  return tick.toolCalls.some((call) => {
    if (call.toolName !== 'write_file') return false;
    const path = (call.input as { path?: unknown } | null)?.path;
    const result = tick.toolResults.find((r) => r.toolCallId === call.toolCallId);
    return (
      typeof path === 'string' &&
      path.replace(/^\.\//, '') === 'SUMMARY.md' &&
      result?.isError === false
    );
  });
}

/**
 * The gate that makes "write SUMMARY.md" a fact the runtime checks, not a request the model may
 * forget: it starts deferred (engaged: finishing is refused), and the host clears it when a
 * write_file of SUMMARY.md succeeds. The model cannot clear it itself.
 */
export const summaryGate = gate({
  description: 'SUMMARY.md must be written before finishing',
  instructions:
    'SUMMARY PENDING: you have not written SUMMARY.md. Write it with write_file (one section per ' +
    'note, key points as bullets), then finish.',
  initial: 'deferred',
  clearableBy: 'host',
  clearWhen: wroteSummary,
  requiresTools: ['write_file'],
});

/** The agent: instructions, the task, its history, three tools confined to `root`, and its gate. */
export function FileAgent(props: { root: string; task?: string }) {
  const { root } = props;
  return (
    <>
      <System>
        You are a careful file assistant working inside a sandboxed workspace directory.
        <Section title="Rules">
          {[
            '- Call list_files before reading, and read a file before summarizing it.',
            '- Paths are relative to the workspace root; anything outside it is refused.',
            '- When the task is done, reply with a short confirmation and no tool call.',
          ].join('\n')}
        </Section>
      </System>
      <User>{props.task ?? TASK}</User>
      <Timeline />
      <FileTools root={root} workspace={workspace} />
      <Gate name="summary" {...summaryGate} />
    </>
  );
}

export interface FileAgentRun {
  model: LanguageModel;
  root: string;
  task?: string;
  onEvent?: EventListener;
  maxTicks?: number;
  signal?: AbortSignal;
}

export function runFileAgent(options: FileAgentRun): Promise<RunResult> {
  return run(<FileAgent root={options.root} {...(options.task ? { task: options.task } : {})} />, {
    model: options.model,
    maxTicks: options.maxTicks ?? 20,
    // The event listener prints the model's text as it is written, so every call streams
    // (by default a plain onEvent listener would get each reply's text in one piece).
    ...(options.onEvent ? { onEvent: options.onEvent, streaming: true } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}
