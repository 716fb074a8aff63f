import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What `bin/agate.js` leaves on `globalThis` when it runs the CLI from its TypeScript sources
 * (in the Agate repository, no build): its tsx registration for the CLI's own files, which an
 * agent file's registration replaces, and the folder those files live in.
 */
export const SOURCE_LOADER = Symbol.for('agate.cli.sourceLoader');

interface SourceLoader {
  /** The repository's root: the CLI's sources (and the workspace's) are below it. */
  root: string;
  unregister(): Promise<void> | void;
}

let registered: Promise<void> | undefined;

/**
 * Compiles TypeScript and JSX for an agent file and whatever it imports, the same way
 * whatever runs the CLI (`pnpm agate`, `bin/agate.js` in the repository, the installed bin):
 * tsx's hooks with the tsconfig of `agentTsconfig`, registered once per process. Run from the
 * sources, the bin's own registration is replaced by this one, which covers the CLI's
 * sources too: two registrations would each compile a file, the first one with the wrong JSX.
 */
export function registerAgentTypeScript(agentPath: string, coreEntryUrl?: string): Promise<void> {
  registered ??= (async () => {
    const source = (globalThis as Record<symbol, SourceLoader | undefined>)[SOURCE_LOADER];
    const agentDir = dirname(agentPath);
    const tsconfig = agentTsconfig(nearestTsconfig(agentDir), [
      agentDir,
      ...(source !== undefined ? [source.root] : []),
    ]);
    const { register } = await import('tsx/esm/api');
    await source?.unregister();
    register({ tsconfig });
    if (coreEntryUrl !== undefined) keepTsxOffBuiltCore(coreEntryUrl);
  })();
  return registered;
}

/**
 * tsx's load hook also runs on compiled JavaScript loaded after it is registered (it rewrites
 * each `import()` and maps the file), and a CommonJS agent's `require('@agate/core')` passes
 * the CLI's already loaded core through the load hooks once more: Node reads the source before
 * it finds the module in its cache. tsx's pass over the core's bundle was a third of a small
 * run's CPU. The built core's files are plain ES modules the CLI loaded without tsx, so they are
 * read here instead, by a hook registered after tsx's (which runs before it). Run from the
 * sources, the core is TypeScript and tsx keeps compiling it.
 */
function keepTsxOffBuiltCore(coreEntryUrl: string): void {
  if (!coreEntryUrl.startsWith('file:') || !/\/dist\/[^/]+\.js$/.test(coreEntryUrl)) return;
  const dist = new URL('./', coreEntryUrl).href;
  registerHooks({
    load(url, context, nextLoad) {
      if (!url.startsWith(dist) || !url.endsWith('.js')) return nextLoad(url, context);
      return { format: 'module', source: readFileSync(fileURLToPath(url)), shortCircuit: true };
    },
  });
}

/**
 * The agent file's own project settings (paths and the like), not those of the directory
 * `agate` was started in.
 */
function nearestTsconfig(dir: string): string | undefined {
  for (let current = dir; ; current = dirname(current)) {
    const candidate = join(current, 'tsconfig.json');
    if (existsSync(candidate)) return candidate;
    if (dirname(current) === current) return undefined;
  }
}

/**
 * A tsconfig for tsx that keeps the agent project's own settings (`extends` its nearest
 * tsconfig.json, for paths and the like) but compiles JSX through React's automatic runtime
 * and applies to every file, whatever that tsconfig's `jsx`, `include` or `exclude` say:
 * otherwise a file outside `include` compiles with classic JSX and fails with "React is not
 * defined". Written to the temporary directory, as tsx reads settings only from a file.
 *
 * The `**` wildcard alone does not reach every file: as in TypeScript, it never steps into
 * `node_modules` or a folder whose name starts with a dot, so an agent a package ships (or one
 * kept in `~/.agents`) would still get classic JSX. The agent's own folder (and, run from the
 * sources, the repository) is therefore included by its literal path, with everything below it.
 */
function agentTsconfig(
  projectTsconfig: string | undefined,
  includeDirs: readonly string[] = [],
): string {
  const config = {
    ...(projectTsconfig !== undefined ? { extends: projectTsconfig } : {}),
    compilerOptions: {
      target: 'ES2023',
      jsx: 'react-jsx',
      jsxImportSource: 'react',
      ...(projectTsconfig === undefined
        ? { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, esModuleInterop: true }
        : {}),
    },
    include: ['/**/*', ...includeDirs.map((dir) => `${dir}/**/*`)],
    exclude: [],
  };
  // One file per distinct content, reused by later runs instead of a new one each time.
  const text = JSON.stringify(config, null, 2);
  const dir = join(tmpdir(), 'agate-tsconfig');
  const path = join(dir, `${createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    // Whole or not at all, for a run starting at the same moment in another process.
    writeFileSync(`${path}.${process.pid}`, text);
    renameSync(`${path}.${process.pid}`, path);
  }
  return path;
}
