import {
  type EventListener,
  gate,
  type RunResult,
  run,
  Section,
  System,
  type TickResult,
  Timeline,
  Tool,
  User,
  useGate,
} from '@agate/core';
import { FileTools, type FileToolText } from '@agate/example-kit';
import type { LanguageModel } from 'ai';
import { z } from 'zod';
import { runNodeTests } from './run-tests.js';
import { workspace } from './workspace.js';

export const TASK =
  'The test suite fails: add() in math.js returns the wrong result. Fix the bug, then finish with a one-line summary.';

const edits = (tick: TickResult) =>
  tick.toolCalls.some((c) => c.toolName === 'write_file' || c.toolName === 'edit_file');

/** Model-cleared: the model runs the checks and clears the gate with set_knob. */
export const verification = gate({
  description: 'Verify your changes before completing',
  instructions:
    'VERIFICATION PENDING: you changed files. Run run_tests and read the result. If tests fail, fix them; when they pass, clear this gate.',
  activateWhen: edits,
  requiresTools: ['run_tests'],
});

/** Host-verified: the gate clears itself once run_tests passed after the last write. */
export const hostVerification = gate({
  description: 'The test suite must pass after your last change',
  instructions:
    'VERIFICATION PENDING: you changed files. Run run_tests after your last change; this gate clears itself when they pass.',
  activateWhen: edits,
  clearableBy: 'host',
  clearWhen: (_tick, history) => testsPassedAfterLastWrite(history.ticks),
  requiresTools: ['run_tests'],
});

/**
 * Evidence, not the model's word: walks recent ticks (oldest first) and answers whether a
 * run_tests call passed after the last write. `history.ticks` is in memory and capped; a
 * session resumed from a snapshot starts it empty, which only means "write, then test again".
 */
export function testsPassedAfterLastWrite(ticks: readonly TickResult[]): boolean {
  let passed = false;
  for (const tick of ticks) {
    for (const call of tick.toolCalls) {
      if (call.toolName === 'write_file' || call.toolName === 'edit_file') passed = false;
      if (call.toolName === 'run_tests') {
        const result = tick.toolResults.find((r) => r.toolCallId === call.toolCallId);
        const output = result?.output as { passed?: unknown } | null | undefined;
        passed = result?.isError === false && output?.passed === true;
      }
    }
  }
  return passed;
}

/** The file tools' wording for a project rather than a generic workspace. */
const FILE_TOOL_TEXT: FileToolText = {
  listFiles: "List the project's files (recursively).",
  listPath: 'Directory, "." for all.',
  readFile: 'Read a UTF-8 text file.',
  writeFile: 'Create or overwrite a UTF-8 text file with its whole new content.',
  filePath: 'File path relative to the project root.',
};

export interface CodingAgentProps {
  root: string;
  task?: string;
  /** Let the host clear the gate from test evidence instead of the model. */
  hostVerified?: boolean;
  testTimeoutMs?: number;
}

export function CodingAgent(props: CodingAgentProps) {
  const { root } = props;
  const gateState = useGate('verification', props.hostVerified ? hostVerification : verification);
  return (
    <>
      <System>
        You are a careful coding agent working in a small JavaScript project.
        <Section title="Rules">
          {[
            '- Read a file before changing it; write_file replaces the whole file.',
            '- Paths are relative to the project root.',
            '- run_tests runs the real test suite (node --test) and returns its exit code and output.',
            '- When the task is done, reply with a one-line summary and no tool call.',
          ].join('\n')}
        </Section>
      </System>
      <User>{props.task ?? TASK}</User>
      {/* Over the context budget the oldest turns go first; the last few always stay. */}
      <Timeline keepLast={4} />
      <FileTools root={root} workspace={workspace} text={FILE_TOOL_TEXT} listPathDefault="." />
      <Tool
        name="run_tests"
        description="Run the project's test suite (node --test). Returns exitCode, passed and the output."
        input={z.object({})}
        execute={(_input, ctx) =>
          runNodeTests(root, {
            signal: ctx.abortSignal,
            ...(props.testTimeoutMs !== undefined ? { timeoutMs: props.testTimeoutMs } : {}),
          })
        }
      />
      {gateState.element}
    </>
  );
}

export interface CodingAgentRun extends CodingAgentProps {
  model: LanguageModel;
  onEvent?: EventListener;
  maxTicks?: number;
  signal?: AbortSignal;
  /** Tokens per request (system text, tools, history); the history is pruned to fit. */
  maxContextTokens?: number;
}

/** A budget well inside today's context windows; a long session is pruned to it. */
export const DEFAULT_CONTEXT_TOKENS = 32_000;

export function runCodingAgent(options: CodingAgentRun): Promise<RunResult> {
  const { model, onEvent, maxTicks, signal, maxContextTokens, ...props } = options;
  return run(<CodingAgent {...props} />, {
    model,
    maxTicks: maxTicks ?? 20,
    context: { maxTokens: maxContextTokens ?? DEFAULT_CONTEXT_TOKENS },
    // The event listener prints the model's text as it is written, so every call streams.
    ...(onEvent ? { onEvent, streaming: true } : {}),
    ...(signal ? { signal } : {}),
  });
}
