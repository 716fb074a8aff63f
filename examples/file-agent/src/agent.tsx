import {
  type EventListener,
  type RunResult,
  run,
  Section,
  System,
  Timeline,
  Tool,
  User,
} from '@agate/core';
import type { LanguageModel } from 'ai';
import { z } from 'zod';
import { listFiles, readWorkspaceFile, writeWorkspaceFile } from './workspace.js';

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
      <Tool
        name="list_files"
        description="List the files under a directory of the workspace (recursively), with sizes."
        input={z.object({
          path: z.string().describe('Directory relative to the workspace root, "." for all.'),
        })}
        execute={({ path }) => listFiles(root, path)}
      />
      <Tool
        name="read_file"
        description="Read a UTF-8 text file of the workspace."
        input={z.object({ path: z.string().describe('File path relative to the workspace root.') })}
        execute={({ path }) => readWorkspaceFile(root, path)}
      />
      <Tool
        name="write_file"
        description="Create or overwrite a UTF-8 text file in the workspace."
        input={z.object({
          path: z.string().describe('File path relative to the workspace root.'),
          content: z.string().describe('The whole new content of the file.'),
        })}
        execute={({ path, content }) => writeWorkspaceFile(root, path, content)}
      />
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
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}
