import { Checkpoint, gate, System, Timeline, Tool, useGate, useTimeline } from '@agate/core';
import { z } from 'zod';

/** Engaged once the agent changes a file; cleared by the host when the tests ran. */
const verification = gate({
  description: 'Run the tests after changing files',
  instructions: 'You changed a file. Run the tests before you say you are done.',
  activateWhen: (tick) => tick.toolCalls.some((c) => c.toolName === 'write_file'),
  clearWhen: (tick) => tick.toolCalls.some((c) => c.toolName === 'run_tests'),
});

/** A small coding agent: every reply of it goes to the page through toUIMessageStream. */
export function ChatAgent(props: { files: Map<string, string> }) {
  const verified = useGate('verification', verification);
  // The review opens once the tests ran: before that, finishing is the gate's to refuse.
  const tested = useTimeline().some(
    (m) =>
      m.role === 'assistant' &&
      Array.isArray(m.content) &&
      m.content.some((part) => part.type === 'tool-call' && part.toolName === 'run_tests'),
  );
  return (
    <>
      <System>
        You fix small bugs. Change files with write_file and check them with run_tests.
      </System>
      <Timeline />
      <Tool
        name="write_file"
        description="Write a file."
        input={z.object({ path: z.string(), content: z.string() })}
        execute={({ path, content }) => {
          props.files.set(path, content);
          return `wrote ${path}`;
        }}
      />
      <Tool
        name="run_tests"
        description="Run the test suite."
        input={z.object({})}
        execute={() => ({ passed: 3, failed: 0 })}
      />
      {verified.element}
      {tested && <Checkpoint id="review" task="Submit the change for review." />}
    </>
  );
}
