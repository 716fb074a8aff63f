/**
 * CPU profile of one benchmark loop, summarized in milliseconds per tick:
 * `pnpm --filter @agate/bench profile [loop] [--ticks N] [--window W] [--runs R] [--match text] [--save file.cpuprofile]`
 * (loops: agate, generateText, streamText, agatePreconverted, ...). Runs the loop for warm-up
 * first, then profiles several runs with the V8 sampling profiler through node:inspector and
 * prints the functions and packages where the time goes. `--window W` profiles only the last
 * W ticks of each run (a long history: `--ticks 1500 --window 100`). `--save` also writes the
 * raw profile for Chrome DevTools / speedscope (write it under /tmp).
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
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
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const savePath = flag('--save');
/** Also list every function whose name or file contains this (`--match families/`). */
const match = flag('--match');
if (!isLoopName(loopName)) {
  throw new Error(`Unknown loop "${loopName}". Loops: ${LOOP_NAMES.join(', ')}.`);
}
const TICKS = Number(flag('--ticks') ?? 200);
const WINDOW = Math.min(TICKS, Number(flag('--window') ?? TICKS));
const RUNS = Number(flag('--runs') ?? (WINDOW < TICKS ? 3 : 10));

const loop = LOOPS[loopName];
for (let i = 0; i < (WINDOW < TICKS ? 1 : 3); i++) await loop.run(TICKS);

// The callback API dispatches synchronously, so the profiler can be started from inside a
// tick callback (the start of the window).
const session = new Session();
session.connect();
const post = (method: string, params?: object) =>
  new Promise<unknown>((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );
await post('Profiler.enable');
await post('Profiler.setSamplingInterval', { interval: 100 });
let profiled = 0;
const profiles: Profile[] = [];
for (let i = 0; i < RUNS; i++) {
  let tick = 0;
  let started = 0;
  const startAt = TICKS - WINDOW;
  const begin = () => {
    started = performance.now();
    session.post('Profiler.start');
  };
  if (startAt === 0) begin();
  await loop.run(TICKS, () => {
    tick += 1;
    if (tick === startAt) begin();
  });
  profiled += performance.now() - started;
  profiles.push(((await post('Profiler.stop')) as { profile: Profile }).profile);
}
session.disconnect();
const elapsed = profiled;
const profile = mergeProfiles(profiles);
if (savePath) await writeFile(savePath, JSON.stringify(profiles[profiles.length - 1]));

/** Concatenates several profiles' samples (node ids made unique per profile). */
function mergeProfiles(list: Profile[]): Profile {
  const merged: Profile = { nodes: [], samples: [], timeDeltas: [] };
  let offset = 0;
  for (const p of list) {
    const max = Math.max(...p.nodes.map((n) => n.id));
    for (const n of p.nodes) {
      merged.nodes.push({
        ...n,
        id: n.id + offset,
        ...(n.children ? { children: n.children.map((c) => c + offset) } : {}),
      });
    }
    merged.samples.push(...p.samples.map((s) => s + offset));
    merged.timeDeltas.push(...p.timeDeltas);
    offset += max + 1;
  }
  return merged;
}

const ticks = WINDOW * RUNS;
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
const underInspector = (id: number) => {
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    if (nodes.get(cur)!.callFrame.url === 'node:inspector') return true;
  }
  return false;
};
profile.samples.forEach((id, i) => {
  // Starting the profiler from a tick callback is sampled too; it is not the loop's work.
  if (underInspector(id)) return;
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
    `${loop.label}: ${RUNS} runs × ${TICKS} ticks${WINDOW < TICKS ? `, last ${WINDOW} profiled` : ''}, ${(elapsed / ticks).toFixed(3)} ms/tick wall, NODE_ENV=${process.env.NODE_ENV ?? '(unset)'}`,
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
    ...(match
      ? [
          `Functions matching "${match}", inclusive time:`,
          table(new Map([...inclusive].filter(([key]) => key.includes(match))), 40),
          '',
          `Functions matching "${match}", self time:`,
          table(new Map([...self].filter(([key]) => key.includes(match))), 40),
          '',
        ]
      : []),
  ].join('\n'),
);
