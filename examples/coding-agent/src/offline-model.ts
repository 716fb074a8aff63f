import { type ScriptedModel, type ScriptedTurn, scriptedModel } from '@agate/testing';

/** What the scripted model writes: the bug fixed. */
export const FIXED_MATH = [
  '/** Adds two numbers. */',
  'export function add(a, b) {',
  '  return a + b;',
  '}',
  '',
].join('\n');

/**
 * A scripted model that behaves like a hasty coder: it reads the module, writes a fix and
 * tries to finish straight away. The verification gate refuses; then it runs the real tests
 * and clears the gate (or, with a host-verified gate, the passing tests clear it), and finishes.
 */
export function offlineModel(options: { hostVerified?: boolean } = {}): ScriptedModel {
  const turns: ScriptedTurn[] = [
    {
      text: 'Let me look at the module first.',
      toolCalls: [{ toolName: 'read_file', input: { path: 'math.js' } }],
    },
    {
      text: 'add() subtracts; fixing it.',
      toolCalls: [{ toolName: 'write_file', input: { path: 'math.js', content: FIXED_MATH } }],
    },
    'Fixed add() in math.js.',
    {
      text: 'Running the tests.',
      toolCalls: [{ toolName: 'bash', input: { command: 'node --test' } }],
    },
    ...(options.hostVerified
      ? []
      : [
          {
            text: 'Tests pass; clearing the verification gate.',
            toolCalls: [
              { toolName: 'set_knob', input: { name: 'verification', value: 'inactive' } },
            ],
          },
        ]),
    'Fixed add() in math.js (it subtracted); the test suite passes.',
  ];
  return scriptedModel(turns);
}
