/**
 * A child process for the store faults: it runs one tick of the fault agent, then saves the
 * session to a file store again and again. `race <dir> <id> <who> <saves>` saves `saves` times
 * and exits (two of these race on one id); `forever <dir> <id> <who> <chars>` saves big
 * snapshots until it is killed. It prints `ready` after its first save.
 */
import { scriptedModel } from '@agate/testing';
import { createElement } from 'react';
import { createFileStore, createSession } from '../../index.js';
import { FaultAgent } from '../harness.js';

const [mode, dir, id, who, size] = process.argv.slice(2);
if (dir === undefined || id === undefined || who === undefined || size === undefined) {
  throw new Error('usage: saver.tsx race|forever <dir> <id> <who> <saves|chars>');
}
const text = mode === 'forever' ? 'x'.repeat(Number(size)) : `answer from ${who}`;
const model = scriptedModel([{ text, toolCalls: [{ toolName: 'step', input: { n: 1 } }] }]);
const store = createFileStore(dir);
const session = createSession(createElement(FaultAgent), { model, id, store });
const result = await session.run({ maxTicks: 1 });
if (result.status !== 'max-ticks') throw new Error(`the first tick ended ${result.status}`);

const saves = mode === 'forever' ? Number.POSITIVE_INFINITY : Number(size);
for (let i = 0; i < saves; i++) {
  await store.save(session.snapshot(`${who}-${i}`));
  if (i === 0) process.stdout.write('ready\n');
}
session.dispose();
