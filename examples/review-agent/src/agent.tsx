import { Gate, Output, SubAgent, System, type TickResult, Timeline, Tool, User } from '@agate/core';
import { FileTools, runNodeTests } from '@agate/example-kit';
import { z } from 'zod';
import { workspace } from './workspace.js';

export const TASK =
  'add() in math.js is broken. Fix it, then have the change reviewed and the docs checked (both at once), and finish with a one-line summary.';

/** What the reviewer answers: `result.subAgents[id].output`, and the coder's tool result. */
export const Verdict = z.object({
  verdict: z.enum(['approve', 'request-changes']),
  testsPassed: z.boolean(),
  issues: z.array(z.string()),
});

/** A run_tests call that passed, in this tick: the evidence the verification gate wants. */
export const testsPassed = (tick: TickResult) =>
  tick.toolResults.some(
    (r) =>
      r.toolName === 'run_tests' &&
      !r.isError &&
      (r.output as { passed?: unknown } | null)?.passed === true,
  );

function RunTests(props: { root: string }) {
  return (
    <Tool
      name="run_tests"
      description="Run the project's tests (node --test) and report the result."
      input={z.object({})}
      category="shell"
      execute={async (_input, ctx) => {
        const run = await runNodeTests(props.root, { signal: ctx.abortSignal });
        return { passed: run.passed, exitCode: run.exitCode, output: run.output };
      }}
    />
  );
}

/**
 * The reviewer: reads the change and answers with a Verdict. Its verification gate starts
 * active and only the host clears it, when the tests ran and passed: until then "looks good"
 * is refused.
 */
export function Reviewer(props: { root: string; change: string }) {
  return (
    <>
      <System>You review a code change. Run the tests before you give your verdict.</System>
      <User>Review this change: {props.change}</User>
      <Timeline />
      <FileTools root={props.root} workspace={workspace} />
      <RunTests root={props.root} />
      <Gate
        name="verification"
        description="The tests must run (and pass) before a verdict"
        instructions="VERIFICATION PENDING: run the tests with run_tests before you answer."
        initial="active"
        clearableBy="host"
        clearWhen={testsPassed}
      />
      <Output schema={Verdict} />
    </>
  );
}

/** The docs sub-agent: checks the README still describes the code, and says so. */
export function DocsWriter(props: { root: string; topic: string }) {
  return (
    <>
      <System>You keep a project's README accurate. Answer in one sentence.</System>
      <User>Check the README describes {props.topic} correctly; fix it if not.</User>
      <Timeline />
      <FileTools root={props.root} workspace={workspace} />
    </>
  );
}

/** The coder: fixes the bug, then hands review and docs to two sub-agents in one response. */
export function ReviewAgent(props: { root: string }) {
  return (
    <>
      <System>
        You fix bugs in a small JavaScript project. When the fix is written, call reviewer and docs
        in the same response; finish once both answered.
      </System>
      <User>{TASK}</User>
      <Timeline />
      <FileTools root={props.root} workspace={workspace} />
      <SubAgent
        name="reviewer"
        description="Reviews a change: runs the tests and answers with a verdict."
        input={z.object({ change: z.string().describe('What changed, in one sentence.') })}
        agent={(input) => <Reviewer root={props.root} change={input.change} />}
        maxTicks={8}
      />
      <SubAgent
        name="docs"
        description="Checks that the README describes a function correctly."
        input={z.object({ topic: z.string() })}
        agent={(input) => <DocsWriter root={props.root} topic={input.topic} />}
        maxTicks={6}
      />
    </>
  );
}
