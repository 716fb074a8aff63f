import { defineWorkspace } from '@agate/example-kit';

export const MATH = [
  '/** Adds two numbers. */',
  'export function add(a, b) {',
  '  return a + b;',
  '}',
  '',
].join('\n');

/** A tiny project: one module and its `node --test` suite. */
export const SEED_FILES: Readonly<Record<string, string>> = {
  'package.json': `${JSON.stringify({ name: 'tiny-math', private: true, type: 'module' }, null, 2)}\n`,
  'math.js': MATH,
  'math.test.js': [
    "import assert from 'node:assert/strict';",
    "import { test } from 'node:test';",
    "import { add } from './math.js';",
    '',
    "test('add adds', () => {",
    '  assert.equal(add(2, 3), 5);',
    '});',
    '',
  ].join('\n'),
};

export const workspace = defineWorkspace({
  tempPrefix: 'agate-todo-agent-',
  seedFiles: SEED_FILES,
  examplePath: 'math.js',
});

export const { create: createWorkspace } = workspace;
