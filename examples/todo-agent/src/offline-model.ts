import { type ScriptedModel, type ScriptedTurn, scriptedModel } from '@agate/testing';

export const PLAN = [
  { content: 'Review add() in math.js', activeForm: 'Reviewing add() in math.js' },
  { content: 'Run the test suite', activeForm: 'Running the test suite' },
] as const;

type Status = 'pending' | 'in_progress' | 'completed';
const todos = (first: Status, second: Status) => ({
  todos: [
    { ...PLAN[0], status: first },
    { ...PLAN[1], status: second },
  ],
});

/**
 * A scripted model that cuts a corner: it reviews the module and signs that step off, then
 * signs off the test step and marks it completed without running the tests. The host refuses
 * the sign-off (the command never ran) and rejects the write; it tries to finish anyway and is
 * refused; then it runs the real tests, signs the step off with
 * the command that ran, marks it completed and finishes.
 */
export function offlineModel(): ScriptedModel {
  const turns: ScriptedTurn[] = [
    {
      text: 'Planning the work.',
      toolCalls: [{ toolName: 'todo_write', input: todos('in_progress', 'pending') }],
    },
    {
      text: 'Reading the module.',
      toolCalls: [{ toolName: 'read_file', input: { path: 'math.js' } }],
    },
    {
      text: 'add() looks right. Signing off the review.',
      toolCalls: [
        {
          toolName: 'complete_step',
          input: { step: 1, evidence: { files: ['./math.js'] } },
        },
        { toolName: 'todo_write', input: todos('completed', 'in_progress') },
      ],
    },
    {
      text: 'The tests surely pass; signing off and marking them done.',
      toolCalls: [
        {
          toolName: 'complete_step',
          input: { step: 2, evidence: { verification: 'node --test' } },
        },
        { toolName: 'todo_write', input: todos('completed', 'completed') },
      ],
    },
    'All done: add() is correct and the tests pass.',
    { text: 'Running the tests.', toolCalls: [{ toolName: 'run_tests', input: {} }] },
    {
      text: 'They pass. Signing off.',
      toolCalls: [
        {
          toolName: 'complete_step',
          input: { step: 'Run the test suite', evidence: { verification: 'node --test' } },
        },
        { toolName: 'todo_write', input: todos('completed', 'completed') },
      ],
    },
    'Reviewed add() in math.js and ran the test suite (node --test): it passes.',
  ];
  return scriptedModel(turns);
}
