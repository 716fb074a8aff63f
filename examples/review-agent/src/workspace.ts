import { defineWorkspace } from '@agate/example-kit';

/** The bug the coder fixes: `add` subtracts. */
export const BUGGY_MATH = [
  '/** Adds two numbers. */',
  'export function add(a, b) {',
  '  return a - b;',
  '}',
  '',
].join('\n');

export const FIXED_MATH = BUGGY_MATH.replace('a - b', 'a + b');

/** A small project: a module with a bug, its tests, and a README the docs sub-agent updates. */
export const SEED_FILES: Readonly<Record<string, string>> = {
  'package.json': `${JSON.stringify({ name: 'tiny-math', private: true, type: 'module' }, null, 2)}\n`,
  'math.js': BUGGY_MATH,
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
  'README.md': '# tiny-math\n\n`add(a, b)`: adds two numbers.\n',
};

export const workspace = defineWorkspace({
  tempPrefix: 'agate-review-agent-',
  seedFiles: SEED_FILES,
  examplePath: 'math.js',
});

export const { create: createWorkspace } = workspace;
