/** The notes agent under a ContinueGate with a tool-call budget and a restore point every 2 steps; a throttle waits 10 ms. */
import { ContinueGate } from '@agate/core';
import NotesAgent from './notes-agent.js';

export default function BudgetedAgent() {
  return (
    <>
      <NotesAgent />
      <ContinueGate checkpointIntervalSteps={2} budget={{ toolCalls: 10 }} cooldownMs={10} />
    </>
  );
}
