import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire, registerHooks } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A bare specifier: a package name, not a path or a URL (`node:fs`, `file:`, `data:`). */
const BARE = /^(?![./]|[a-zA-Z][a-zA-Z+.-]*:)/;

let registered = false;

/**
 * A bare import (`@agate/core`, `react/jsx-runtime`, `zod`) of an agent file that does not
 * resolve from the file's own folder resolves from the CLI's instead, so an agent file
 * anywhere on disk runs with the packages the CLI brought, and shares the CLI's `@agate/core`
 * and React (one copy, one React context). For `import` through Node's in-thread module hooks,
 * and for `require` (tsx loads a `.tsx` file outside an ESM package as CommonJS, through the
 * CommonJS loader, which those hooks do not see) through that loader's resolver. Files inside
 * a node_modules folder are left alone: a dependency's missing import is its own error.
 * `resolveFromCli` resolves a specifier as the CLI's own code would (`import.meta.resolve`).
 */
export function resolveAgentImportsFromCli(
  from: string,
  resolveFromCli: (specifier: string) => string,
): void {
  if (registered) return;
  registered = true;
  patchCommonJsResolution(resolveFromCli);
  registerHooks({
    resolve(specifier, context, nextResolve) {
      try {
        return nextResolve(specifier, context);
      } catch (error) {
        const parent = context.parentURL;
        if (
          (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' ||
          (error as { code?: unknown }).code === 'MODULE_NOT_FOUND'
        ) {
          if (
            BARE.test(specifier) &&
            typeof parent === 'string' &&
            parent.startsWith('file:') &&
            !parent.includes('/node_modules/')
          ) {
            try {
              return nextResolve(specifier, { ...context, parentURL: from });
            } catch {
              // Not the CLI's either: report the original failure, about the agent's folder.
            }
          }
        }
        throw error;
      }
    },
  });
}

type ResolveFilename = (
  request: string,
  parent: { filename?: string | null } | undefined,
  ...rest: unknown[]
) => string;

function patchCommonJsResolution(resolveFromCli: (specifier: string) => string): void {
  const Module = createRequire(import.meta.url)('node:module') as {
    _resolveFilename: ResolveFilename;
  };
  const original = Module._resolveFilename;
  Module._resolveFilename = function resolveFilename(this: unknown, request, parent, ...rest) {
    try {
      return original.call(this, request, parent, ...rest);
    } catch (error) {
      const from = parent?.filename;
      if (
        (error as { code?: unknown }).code === 'MODULE_NOT_FOUND' &&
        BARE.test(request) &&
        typeof from === 'string' &&
        !from.includes('/node_modules/')
      ) {
        try {
          return fileURLToPath(resolveFromCli(request));
        } catch {
          // Not the CLI's either: report the original failure, about the agent's folder.
        }
      }
      throw error;
    }
  };
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
 * kept in `~/.agents`) would still get classic JSX. The agent's own folder is therefore
 * included by its literal path, with everything below it.
 */
export function agentTsconfig(projectTsconfig: string | undefined, agentDir?: string): string {
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
    include: ['/**/*', ...(agentDir !== undefined ? [`${agentDir}/**/*`] : [])],
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
