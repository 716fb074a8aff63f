import {
  type EventListener,
  type RunResult,
  run,
  Section,
  System,
  Timeline,
  Todos,
  Tool,
  User,
} from '@agate/core';
import { FileTools, runNodeTests } from '@agate/example-kit';
import type { LanguageModel } from 'ai';
import { z } from 'zod';
import { workspace } from './workspace.js';

export const TASK =
  'Review add() in math.js and confirm the test suite passes. Keep a todo list and sign off each step.';

/** What the run_tests receipt records as its command; the model quotes it in complete_step. */
export const TEST_COMMAND = 'node --test';

export interface TodoAgentProps {
  root: string;
  task?: string;
  /** Exit attempts refused while the list is incomplete before the run ends blocked. */
  maxBlocks?: number;
}

/**
 * A todo-driven agent: the host keeps a receipt of every call (reads, edits, test runs) and
 * accepts a step as done only against them. `<Todos requireComplete>` also keeps it from
 * finishing while any step is open.
 */
export function TodoAgent(props: TodoAgentProps) {
  const { root } = props;
  return (
    <>
      <System>
        You are a careful engineer working in a small JavaScript project.
        <Section title="Rules">
          {[
            '- Plan with todo_write before you start; keep exactly one item in_progress.',
            `- Sign off each item with complete_step and evidence: the command you ran (run_tests runs "${TEST_COMMAND}"), the files you read or wrote.`,
            '- Then mark it completed with todo_write. When every item is completed, reply with a one-line summary and no tool call.',
          ].join('\n')}
        </Section>
      </System>
      <User>{props.task ?? TASK}</User>
      <Timeline />
      <FileTools root={root} workspace={workspace} listPathDefault="." />
      <Tool
        name="run_tests"
        description={`Run the project's test suite (${TEST_COMMAND}). Returns exitCode, passed and the output.`}
        input={z.object({})}
        execute={(_input, ctx) => runNodeTests(root, { signal: ctx.abortSignal })}
        evidence={{ kind: 'command', command: () => TEST_COMMAND, ok: (out) => out.passed }}
      />
      <Todos
        requireComplete
        {...(props.maxBlocks !== undefined ? { maxBlocks: props.maxBlocks } : {})}
      />
    </>
  );
}

export interface TodoAgentRun extends TodoAgentProps {
  model: LanguageModel;
  onEvent?: EventListener;
  maxTicks?: number;
  signal?: AbortSignal;
}

export function runTodoAgent(options: TodoAgentRun): Promise<RunResult> {
  const { model, onEvent, maxTicks, signal, ...props } = options;
  return run(<TodoAgent {...props} />, {
    model,
    maxTicks: maxTicks ?? 20,
    ...(onEvent ? { onEvent } : {}),
    ...(signal ? { signal } : {}),
  });
}
