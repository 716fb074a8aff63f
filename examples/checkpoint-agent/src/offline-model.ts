import { type ScriptedModel, scriptedModel } from '@agate/testing';

export const GREET_JS = [
  '/** Greets someone by name. */',
  'export function greet(name) {',
  "  return 'Hello, ' + name + '!';",
  '}',
  '',
].join('\n');

export const GREET_TEST_JS = [
  "import assert from 'node:assert/strict';",
  "import { test } from 'node:test';",
  "import { greet } from './greet.js';",
  '',
  "test('greet greets', () => {",
  "  assert.equal(greet('Ada'), 'Hello, Ada!');",
  '});',
  '',
].join('\n');

const write = (path: string, content: string) => ({
  toolName: 'write_file',
  input: { path, content },
});

/**
 * A scripted model that behaves like an eager coder: it finishes task 1, submits it, and in the
 * same response already starts on task 2 (the runtime refuses that call). Once T-1 is approved
 * it writes the test, submits T-2, and after that approval says it is done.
 */
export function offlineModel(): ScriptedModel {
  return scriptedModel([
    {
      text: 'Writing greet().',
      toolCalls: [
        write('greet.js', GREET_JS),
        {
          toolName: 'submit_checkpoint',
          input: { id: 'T-1', summary: 'greet(name) returns "Hello, <name>!" in greet.js.' },
        },
        write('greet.test.js', '// started early'),
      ],
    },
    {
      text: 'T-1 is approved; writing the test.',
      toolCalls: [
        write('greet.test.js', GREET_TEST_JS),
        {
          toolName: 'submit_checkpoint',
          input: { id: 'T-2', summary: 'greet.test.js checks greet("Ada").' },
        },
      ],
    },
    'Both tasks are done: greet() in greet.js and its test in greet.test.js.',
  ]);
}
