import {
  type EventListener,
  gate,
  type RunResult,
  run,
  Section,
  Shell,
  System,
  type TickResult,
  Timeline,
  User,
  useGate,
} from '@agate/core';
import { FileTools, type FileToolText } from '@agate/example-kit';
import type { LanguageModel } from 'ai';
import { workspace } from './workspace.js';

export const TASK =
  'The test suite fails: add() in math.js returns the wrong result. Fix the bug, then finish with a one-line summary.';

const edits = (tick: TickResult) =>
  tick.toolCalls.some((c) => c.toolName === 'write_file' || c.toolName === 'edit_file');

/** The command that runs the project's tests, in the sandboxed shell. */
export const TEST_COMMAND = 'node --test';

/** A bash call that ran the test suite. */
const isTestRun = (call: { toolName: string; input: unknown }) =>
  call.toolName === 'bash' &&
  String((call.input as { command?: unknown } | null)?.command ?? '').includes(TEST_COMMAND);

/** Model-cleared: the model runs the checks and clears the gate with set_knob. */
export const verification = gate({
  description: 'Verify your changes before completing',
  instructions:
    'VERIFICATION PENDING: you changed files. Run the tests (bash: node --test) and read the result. If tests fail, fix them; when they pass, clear this gate.',
  activateWhen: edits,
  requiresTools: ['bash'],
});

/** Host-verified: the gate clears itself once a sandboxed node --test passed after the last write. */
export const hostVerification = gate({
  description: 'The test suite must pass after your last change',
  instructions:
    'VERIFICATION PENDING: you changed files. Run the tests (bash: node --test) after your last change; this gate clears itself when they pass.',
  activateWhen: edits,
  clearableBy: 'host',
  clearWhen: (_tick, history) => testsPassedAfterLastWrite(history.ticks),
  requiresTools: ['bash'],
});

/**
 * Evidence, not the model's word: walks recent ticks (oldest first) and answers whether a
 * sandboxed `node --test` passed after the last write. `history.ticks` is in memory and capped; a
 * session resumed from a snapshot starts it empty, which only means "write, then test again".
 */
export function testsPassedAfterLastWrite(ticks: readonly TickResult[]): boolean {
  let passed = false;
  for (const tick of ticks) {
    for (const call of tick.toolCalls) {
      if (call.toolName === 'write_file' || call.toolName === 'edit_file') passed = false;
      if (isTestRun(call)) {
        const result = tick.toolResults.find((r) => r.toolCallId === call.toolCallId);
        const output = result?.output as
          | { exitCode?: unknown; timedOut?: unknown }
          | null
          | undefined;
        passed = result?.isError === false && output?.exitCode === 0 && output?.timedOut !== true;
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
            '- bash runs a command in the project (sandboxed: it writes only there, no network); run the tests with: node --test',
            '- When the task is done, reply with a one-line summary and no tool call.',
          ].join('\n')}
        </Section>
      </System>
      <User>{props.task ?? TASK}</User>
      {/* Over the context budget the oldest turns go first; the last few always stay. */}
      <Timeline keepLast={4} />
      <FileTools root={root} workspace={workspace} text={FILE_TOOL_TEXT} listPathDefault="." />
      {/* Every command (the tests run the code the model wrote) runs in a bubblewrap sandbox. */}
      <Shell name="bash" cwd={root} timeoutMs={props.testTimeoutMs ?? 60_000} />
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
