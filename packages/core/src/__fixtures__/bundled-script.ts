/**
 * A TypeScript script that tests start as a child process (a racing decider, a worker, a
 * process killed mid-save), bundled once into one JavaScript module (issue 46 item 4).
 * Started with `node --import tsx`, each child resolved and transformed the hundreds of source
 * modules it loads again, 2-3 s of CPU per process; the bundle starts in a fraction of that.
 * The tests check what the processes do, not how the repository loads its sources.
 *
 * The bundle holds the script and every workspace source it reaches (`@agate/*` through the
 * `@agate/source` condition, one copy of each module, as tsx loads them). Installed packages
 * stay outside: each is imported by the absolute path it resolves to from the file importing
 * it, so Node loads the same files it did. Each source's `import.meta.url`/`dirname`/
 * `filename` keep their values (the source's own), so files found next to a module and
 * `createRequire(import.meta.url)` resolve as before.
 *
 * Cached in node_modules/.cache/agate/scripts/ with a hash of every input it was made from:
 * a changed source makes a new bundle. `AGATE_TEST_SOURCE_CLI=1` starts the sources through
 * tsx instead (their own stack traces, to debug a failure).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, version as esbuildVersion, type Metafile, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CACHE = join(ROOT, 'node_modules', '.cache', 'agate', 'scripts');

/**
 * The arguments that make `node` run `script`: the bundle's path, or (with
 * `AGATE_TEST_SOURCE_CLI=1`) tsx and the `@agate/source` condition before the script (start
 * the child with `cwd` in a package that has tsx, as before).
 */
export async function scriptArgs(script: string): Promise<string[]> {
  if (process.env.AGATE_TEST_SOURCE_CLI === '1') {
    return ['--conditions=@agate/source', '--import', 'tsx', script];
  }
  return [await bundledScript(script)];
}

/** The bundle of `script` for its current sources, made now if there is none. */
export async function bundledScript(script: string): Promise<string> {
  const name = `${basename(script).replace(/\.[cm]?[jt]sx?$/, '')}-${hash(relative(ROOT, script)).slice(0, 12)}`;
  const out = join(CACHE, `${name}.mjs`);
  const record = join(CACHE, `${name}.inputs.json`);
  if (existsSync(out) && existsSync(record)) {
    const { inputs, digest } = JSON.parse(readFileSync(record, 'utf8')) as Recorded;
    if (inputsDigest(inputs) === digest) return out;
  }
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [script],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    // tsconfig.base.json: `jsx: react-jsx`.
    jsx: 'automatic',
    conditions: ['@agate/source'],
    logLevel: 'silent',
    plugins: [installedOutside, ownImportMeta],
    outfile: out,
  });
  const inputs = Object.keys((result.metafile as Metafile).inputs).map((file) => join(ROOT, file));
  const code = result.outputFiles[0]?.text;
  if (code === undefined) throw new Error(`esbuild wrote no bundle for ${script}`);
  mkdirSync(CACHE, { recursive: true });
  // Written under names of their own, then renamed: workers bundling the same script at
  // once never start a half-written file.
  const temp = `${out}.${process.pid}.${Date.now()}`;
  writeFileSync(temp, code);
  renameSync(temp, out);
  const recorded: Recorded = { inputs, digest: inputsDigest(inputs) };
  writeFileSync(`${temp}.json`, JSON.stringify(recorded));
  renameSync(`${temp}.json`, record);
  return out;
}

interface Recorded {
  inputs: string[];
  digest: string;
}

const hash = (text: string) => createHash('sha256').update(text).digest('hex');

function inputsDigest(inputs: string[]): string {
  const digest = createHash('sha256').update(`esbuild ${esbuildVersion}\n`);
  for (const file of inputs) {
    if (!existsSync(file)) return '';
    digest.update(`${file}\n`).update(readFileSync(file)).update('\n');
  }
  return digest.digest('hex');
}

/** Installed packages are imported from where they are installed, not bundled. */
const installedOutside: Plugin = {
  name: 'installed-outside',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || args.path.startsWith('@agate/')) return undefined;
      if (args.pluginData === installedOutside) return undefined;
      return build
        .resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: installedOutside,
        })
        .then((resolved) => {
          if (resolved.errors.length > 0) return { errors: resolved.errors };
          // A Node builtin named without `node:` (`fs`, `events`) stays as it is.
          if (!resolved.path.startsWith('/')) return { path: args.path, external: true };
          return { path: resolved.path, external: true };
        });
    });
  },
};

/** Each workspace source keeps its own `import.meta.url`, `dirname` and `filename`. */
const ownImportMeta: Plugin = {
  name: 'own-import-meta',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = readFileSync(args.path, 'utf8')
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      const loader = /\.[cm]?tsx$/.test(args.path)
        ? 'tsx'
        : /\.[cm]?ts$/.test(args.path)
          ? 'ts'
          : /\.[cm]?jsx$/.test(args.path)
            ? 'jsx'
            : 'js';
      return { contents: text, loader };
    });
  },
};
