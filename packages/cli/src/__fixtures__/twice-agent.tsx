/**
 * The agent of `agent-layouts.ts`, kept inside the repository where its tsconfig.json includes
 * it: a gate (a hook of @agate/core) refuses the first answer and takes the second.
 */
import { gate, System, Timeline, User, useGate } from '@agate/core';

const twice = gate({
  description: 'Answer twice',
  instructions: 'ANSWER AGAIN.',
  activateWhen: (tick) => tick.tick === 1,
  clearWhen: (tick) => tick.tick === 2,
});

export default function Twice() {
  const g = useGate('twice', twice);
  return (
    <>
      <System>Answer twice.</System>
      <User>Hi</User>
      <Timeline />
      {g.element}
    </>
  );
}
