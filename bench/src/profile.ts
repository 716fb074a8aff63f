/**
 * CPU profile of one benchmark loop, summarized in milliseconds per tick:
 * `pnpm --filter @agate/bench profile [loop] [--save file.cpuprofile]`
 * (loops: agate, generateText, streamText, agatePreconverted, ...). Runs the loop for warm-up
 * first, then profiles several runs with the V8 sampling profiler through node:inspector and
 * prints the functions and packages where the time goes. `--save` also writes the raw
 * profile for Chrome DevTools / speedscope.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { isLoopName, LOOP_NAMES, LOOPS } from './workload.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const argv = process.argv.slice(2);
const loopName = argv.find((a) => !a.startsWith('--')) ?? 'agate';
const saveIndex = argv.indexOf('--save');
const savePath = saveIndex >= 0 ? argv[saveIndex + 1] : undefined;
if (!isLoopName(loopName)) {
  throw new Error(`Unknown loop "${loopName}". Loops: ${LOOP_NAMES.join(', ')}.`);
}
const TICKS = 200;
const RUNS = 10;

const loop = LOOPS[loopName];
for (let i = 0; i < 3; i++) await loop.run(TICKS);

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
await session.post('Profiler.start');
const started = performance.now();
for (let i = 0; i < RUNS; i++) await loop.run(TICKS);
const elapsed = performance.now() - started;
const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
session.disconnect();
if (savePath) await writeFile(savePath, JSON.stringify(profile));

const ticks = TICKS * RUNS;
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n: ProfileNode) => {
  const url = n.callFrame.url
    .replace(/^file:\/\//, '')
    .replace(/.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, '')
    .replace(/.*\/work\/main\//, '');
  return `${n.callFrame.functionName || '(anonymous)'} ${url}${url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
};
const packageOf = (n: ProfileNode) => {
  const url = n.callFrame.url;
  const dep = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dep) return dep[1]!;
  const own = /\/(packages\/[^/]+|bench)\//.exec(url);
  if (own) return own[1]!;
  if (url.startsWith('node:')) return url.split('/').slice(0, 3).join('/');
  return n.callFrame.functionName || '(other)';
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const byPackage = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = (profile.timeDeltas[i] ?? 0) / 1000;
  total += dt;
  const node = nodes.get(id)!;
  self.set(name(node), (self.get(name(node)) ?? 0) + dt);
  byPackage.set(packageOf(node), (byPackage.get(packageOf(node)) ?? 0) + dt);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const key = name(nodes.get(cur)!);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + dt);
  }
});

const table = (map: Map<string, number>, count: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(
      ([key, value]) =>
        `${(value / ticks).toFixed(3).padStart(7)} ms/tick ${((value / total) * 100).toFixed(1).padStart(5)}%  ${key}`,
    )
    .join('\n');

process.stdout.write(
  [
    `${loop.label}: ${RUNS} runs × ${TICKS} ticks, ${(elapsed / ticks).toFixed(3)} ms/tick wall, NODE_ENV=${process.env.NODE_ENV ?? '(unset)'}`,
    '',
    'By package (self time):',
    table(byPackage, 15),
    '',
    'Top functions, self time:',
    table(self, 25),
    '',
    'Top functions, inclusive time:',
    table(inclusive, 45),
    '',
  ].join('\n'),
);
