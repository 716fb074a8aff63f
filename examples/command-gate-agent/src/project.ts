import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The bug: add() subtracts. */
export const BROKEN = 'exports.add = (a, b) => a - b;\n';

const TEST = `const test = require('node:test');
const assert = require('node:assert');
const { add } = require('./math.js');

test('adds two numbers', () => {
  assert.strictEqual(add(2, 3), 5);
});

test('adding zero changes nothing', () => {
  assert.strictEqual(add(7, 0), 7);
});
`;

/**
 * A real, throwaway node --test project with a failing test: `math.js` (the bug),
 * `math.test.js` (its tests) and a package.json whose test script is `node --test`.
 */
export async function createProject(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agate-command-gate-'));
  await writeFile(join(dir, 'math.js'), BROKEN);
  await writeFile(join(dir, 'math.test.js'), TEST);
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'math', private: true, scripts: { test: 'node --test' } }, null, 2)}\n`,
  );
  return dir;
}
