import { type ScriptedTurn, scriptedModel } from '@agate/testing';

const bash = (command: string): ScriptedTurn => ({
  toolCalls: [{ toolName: 'bash', input: { command } }],
});

/**
 * A model that claims the fix before making it: it looks, declares victory, is refused with
 * the failing test, then fixes add() and finishes again.
 */
export function hastyModel() {
  return scriptedModel([
    bash('cat math.js'),
    'Done: add() is fixed.',
    bash("sed -i 's/a - b/a + b/' math.js && cat math.js"),
    'Fixed add(): it adds now, and the tests pass.',
  ]);
}

/** A model that only ever says it is done: the gate refuses until the run ends blocked. */
export function stubbornModel() {
  return scriptedModel([bash("sed -i 's/a - b/a * b/' math.js"), 'Done.'], {
    whenExhausted: 'repeat-last',
  });
}
