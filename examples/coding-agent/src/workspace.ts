import { defineWorkspace } from '@agate/example-kit';

/** The bug the agent must fix: `add` subtracts. */
export const BUGGY_MATH = [
  '/** Adds two numbers. */',
  'export function add(a, b) {',
  '  return a - b;',
  '}',
  '',
].join('\n');

/** A small project: one module with a bug, and a test file for `node --test`. */
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
    '  assert.equal(add(-1, 1), 0);',
    '});',
    '',
  ].join('\n'),
};

/** The agent's sandbox: a fresh temp directory seeded with `SEED_FILES`. */
export const workspace = defineWorkspace({
  tempPrefix: 'agate-coding-agent-',
  seedFiles: SEED_FILES,
  examplePath: 'math.js',
});

export const { create: createWorkspace } = workspace;
