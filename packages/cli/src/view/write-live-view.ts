/**
 * The build step of the live view (`pnpm build` in packages/cli, after tsc): bundles
 * `start-live-view.tsx` with Ink into one module, `dist/view/start-live-view.js`, replacing the
 * file tsc wrote. Why: Ink's own dependency tree is the largest part of an install of the CLI
 * (`es-toolkit` alone is 4,300 files and 18 MB on disk, for the one `throttle` Ink uses), so the
 * published CLI carries the few hundred KiB of Ink it runs instead of depending on `ink`.
 * React, the reconciler and the core stay shared dependencies: one copy with the agent's own.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const entry = fileURLToPath(new URL('./start-live-view.tsx', import.meta.url));
const outfile =
  process.argv[2] ?? fileURLToPath(new URL('../../dist/view/start-live-view.js', import.meta.url));

/**
 * Ink connects React's devtools when `DEV=true` and `react-devtools-core` is installed, through a
 * dynamic import whose static import of `react-devtools-core` a bundle would hoist to its top (a
 * missing package would then break every run). The bundled CLI leaves that debugging aid out.
 */
const withoutInkDevtools: esbuild.Plugin = {
  name: 'without-ink-devtools',
  setup(build) {
    build.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
      /[\\/]ink[\\/]/.test(args.importer)
        ? { path: 'ink-devtools', namespace: 'without-ink-devtools' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'without-ink-devtools' }, () => ({
      contents: 'export {};',
      loader: 'js',
    }));
  },
};

const result = await esbuild.build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  jsx: 'automatic',
  // Shared with the agent (one React), and Ink's optional devtools, loaded only when asked for.
  external: ['react', 'react/*', 'react-reconciler', 'react-reconciler/*', '@agate/core'],
  plugins: [withoutInkDevtools],
  // Ink's CommonJS dependencies call require() for Node's built-ins; an ES module has none.
  banner: {
    js: "import { createRequire as __agateRequire } from 'node:module';\nconst require = __agateRequire(import.meta.url);",
  },
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});
writeFileSync(`${outfile}.licenses.txt`, bundledLicenses(Object.keys(result.metafile.inputs)));
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
process.stdout.write(`live view: ${outfile} (${Math.round(bytes / 1024)} KiB, Ink bundled)\n`);

/** The license of every package the bundle holds (MIT and friends ask their notice to travel with the code). */
function bundledLicenses(inputs: readonly string[]): string {
  const roots = new Set<string>();
  for (const input of inputs) {
    const at = input.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const rest = input.slice(at + 'node_modules/'.length).split('/');
    const name = rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    if (name) roots.add(join(input.slice(0, at), 'node_modules', name));
  }
  const sections: string[] = [];
  for (const root of [...roots].sort()) {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      license?: string;
    };
    const file = readdirSync(root).find((entry) => /^(licen[cs]e|copying)/i.test(entry));
    const text = file
      ? readFileSync(join(root, file), 'utf8').trim()
      : `License: ${manifest.license ?? 'see the package'}`;
    sections.push(
      `${manifest.name}@${manifest.version} (${manifest.license ?? 'unknown'})\n\n${text}`,
    );
  }
  return `Packages bundled into ${basename(outfile)}:\n\n${sections.join('\n\n----\n\n')}\n`;
}
