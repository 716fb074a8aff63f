import type { LanguageModel } from 'ai';
import { z } from 'zod';
import {
  Checkpoint,
  ContinueGate,
  Gate,
  Output,
  SubAgent,
  System,
  Timeline,
  Tool,
  User,
} from '../../../index.js';

export const Task = z.object({ task: z.string() });
export const Verdict = z.object({ verdict: z.enum(['approve', 'request-changes']) });

export type ChildKind = 'plain' | 'output' | 'gate' | 'loop' | 'stop' | 'throws' | 'checkpoint';

/** A child agent whose shape each test picks. */
export function Child(props: { task: string; kind: ChildKind }) {
  if (props.kind === 'throws') throw new Error('the child tree failed to render');
  return (
    <>
      <System>You are a sub-agent. Do the task.</System>
      <User>{props.task}</User>
      <Timeline />
      <Tool name="run_tests" input={z.object({})} execute={() => 'ok: 3 passed'} />
      {props.kind === 'output' ? <Output schema={Verdict} /> : null}
      {props.kind === 'gate' ? (
        <Gate
          name="tests-run"
          description="The tests must run"
          instructions="Run the tests with run_tests before you answer."
          initial="active"
          clearableBy="host"
          clearWhen={() => false}
          activateWhen={() => false}
          maxBlocks={1}
        />
      ) : null}
      {props.kind === 'stop' ? <ContinueGate budget={{ toolCalls: 1 }} /> : null}
      {props.kind === 'checkpoint' ? <Checkpoint id="T-1" task="Write the review" /> : null}
    </>
  );
}

/** A parent that hands `task` to a sub-agent named `reviewer`. */
export function Parent(props: {
  kind: ChildKind;
  childModel?: LanguageModel;
  maxTicks?: number;
  maxConcurrency?: number;
  extra?: boolean;
}) {
  return (
    <>
      <System>You coordinate sub-agents.</System>
      <User>Get the change reviewed.</User>
      <Timeline />
      <SubAgent
        name="reviewer"
        description="Reviews a change"
        input={Task}
        agent={(input) => <Child task={input.task} kind={props.kind} />}
        {...(props.childModel !== undefined ? { model: props.childModel } : {})}
        {...(props.maxTicks !== undefined ? { maxTicks: props.maxTicks } : {})}
        {...(props.maxConcurrency !== undefined ? { maxConcurrency: props.maxConcurrency } : {})}
      />
      {props.extra ? (
        <Tool
          name="note"
          input={z.object({ text: z.string() })}
          execute={(i) => `noted ${i.text}`}
        />
      ) : null}
    </>
  );
}
