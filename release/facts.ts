import type { InstallFacts } from './node-modules.js';
import type { PackedPackage } from './pack-all.js';
import type { PackageManifest } from './workspace.js';

/**
 * The package facts docs/getting-started.md quotes (tarball sizes, file counts, what a project
 * installs), written from measurements so they cannot go stale: the docs check
 * (docs/check/package-facts.test.ts) compares the page with a fresh measurement, and
 * `pnpm docs:facts` rewrites the block.
 */

export const FACTS_START =
  '<!-- package-facts: measured by docs/check/package-facts.test.ts; `pnpm docs:facts` rewrites this block -->';
export const FACTS_END = '<!-- /package-facts -->';

/** Why a package weighs what it does, for the ones a reader will wonder about. */
const WHY: Record<string, string> = {
  esbuild: "tsx's compiler, which loads TypeScript agent files: its binary for this platform",
  ai: 'the AI SDK',
  zod: 'schemas',
};

const kib = (bytes: number) => `${Math.round(bytes / 1024).toLocaleString('en-US')} KiB`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
/** `name@1.2.3` → `name`; esbuild's platform package (`@esbuild/linux-x64`, …) → `esbuild`. */
const bare = (nameAtVersion: string) =>
  nameAtVersion.replace(/(.)@[^@]*$/, '$1').replace(/^@esbuild\/.*/, 'esbuild');

/** The block's text (between the markers), from the tarballs and the installed projects. */
export function renderFacts(
  packed: readonly PackedPackage[],
  manifests: readonly PackageManifest[],
  runtime: InstallFacts,
  full: InstallFacts,
): string {
  const order = ['@agate/core', '@agate/cli', '@agate/testing', '@agate/postgres', '@agate/dbos'];
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  const byRank = (a: { name: string }, b: { name: string }) =>
    rank(a.name) - rank(b.name) || a.name.localeCompare(b.name);
  const rows = [...packed]
    .sort(byRank)
    .map(
      (p) =>
        `| \`${p.name}\` | ${kib(p.size)} | ${kib(p.unpackedSize)} | ${p.entryCount.toLocaleString('en-US')} |`,
    );
  const biggest = runtime.sizes
    .slice(0, 3)
    .map((p) => {
      const name = bare(p.name);
      return `\`${name}\` ${Math.round(p.bytes / 1e6)} MB${WHY[name] === undefined ? '' : ` (${WHY[name]})`}`;
    })
    .join(', ');
  return [
    'Sizes of the tarballs `pnpm pack:all` writes:',
    '',
    '| package | tarball | unpacked | files |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    'What each depends on (`package.json`):',
    '',
    ...[...manifests].sort(byRank).map(dependencyLine),
    '',
    `A project holding \`@agate/core\` and \`@agate/cli\` (their peers \`ai\`, \`react\` and \`zod\`,`,
    `and the starter's model providers) installs ${runtime.packages} packages, ${mb(runtime.bytes)} of \`node_modules\` (${mb(runtime.diskBytes)} on disk);`,
    `the biggest are ${biggest}.`,
    `The project \`create-agate\` writes adds only its test runner (\`vitest\` and \`@agate/testing\`):`,
    `${full.packages} packages, ${mb(full.bytes)} in all. (Counted after \`npm install\`; sizes are`,
    "the files' own, as `du --apparent-size` counts them; on disk is what `du` counts, blocks.)",
  ].join('\n');
}

/** `- \`@agate/core\`: a, b; peers c, d; optional peers e`. */
function dependencyLine(manifest: PackageManifest): string {
  const list = (names: string[]) => names.map((n) => `\`${n}\``).join(', ');
  const peers = Object.keys(manifest.peerDependencies ?? {}).sort();
  const optional = peers.filter((n) => manifest.peerDependenciesMeta?.[n]?.optional === true);
  const required = peers.filter((n) => !optional.includes(n));
  const parts = [
    list(Object.keys(manifest.dependencies ?? {}).sort()) || 'nothing',
    ...(required.length > 0 ? [`peers ${list(required)}`] : []),
    ...(optional.length > 0 ? [`optional peers ${list(optional)}`] : []),
  ];
  return `- \`${manifest.name}\`: ${parts.join('; ')}`;
}

/** The block between the markers in `page`, or undefined when the markers are missing. */
export function factsBlock(
  page: string,
): { before: string; block: string; after: string } | undefined {
  const start = page.indexOf(FACTS_START);
  const end = page.indexOf(FACTS_END);
  if (start === -1 || end < start) return undefined;
  const from = start + FACTS_START.length;
  return {
    before: page.slice(0, from),
    block: page.slice(from, end).trim(),
    after: page.slice(end),
  };
}

/** `page` with its block replaced by `facts`. */
export function withFacts(page: string, facts: string): string {
  const parts = factsBlock(page);
  if (parts === undefined) throw new Error(`no ${FACTS_START} … ${FACTS_END} block`);
  return `${parts.before}\n${facts}\n${parts.after}`;
}

const NUMBER = /\d[\d,]*(?:\.\d+)?/g;

/**
 * How the page's facts differ from a fresh measurement, as sentences (empty: they agree). The
 * words must match exactly (the same packages, in the same order); each number may be off by
 * `tolerance` of the measured value (at least 1), so a few bytes more in a build does not make
 * the docs wrong, and a figure that has drifted does.
 */
export function staleFacts(written: string, measured: string, tolerance = 0.1): string[] {
  const skeleton = (text: string) => text.replace(NUMBER, '#');
  if (skeleton(written) !== skeleton(measured)) {
    return [`the text differs:\n--- in the docs\n${written}\n--- measured\n${measured}`];
  }
  const numbers = (text: string) =>
    [...text.matchAll(NUMBER)].map((m) => ({
      text: m[0],
      value: Number(m[0].replaceAll(',', '')),
    }));
  const was = numbers(written);
  const now = numbers(measured);
  const lines = measured.split('\n');
  const stale: string[] = [];
  let at = 0;
  for (const [i, n] of now.entries()) {
    const w = was[i];
    if (w === undefined) continue;
    at = measured.indexOf(n.text, at);
    if (Math.abs(w.value - n.value) > Math.max(tolerance * Math.abs(n.value), 1)) {
      const line = lines[measured.slice(0, at).split('\n').length - 1]?.trim() ?? '';
      stale.push(`${w.text} in the docs, ${n.text} measured: ${line}`);
    }
    at += n.text.length;
  }
  return stale;
}
