import {
  type EventListener,
  type RunResult,
  run,
  Section,
  System,
  Timeline,
  User,
} from '@agate/core';
import { FileTools } from '@agate/example-kit';
import type { LanguageModel } from 'ai';
import { workspace } from './workspace.js';

export const TASK =
  'Read every note under notes/ and write SUMMARY.md at the workspace root: one section per note ' +
  'with its key points as bullets. Then reply with a one-line confirmation.';

/** The agent: instructions, the task, its history, and three tools confined to `root`. */
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
