import { createRequire, registerHooks } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A bare specifier: a package name, not a path or a URL (`node:fs`, `file:`, `data:`). */
const BARE = /^(?![./]|[a-zA-Z][a-zA-Z+.-]*:)/;
/**
 * Packages a run must load once: `@agate/core` (an agent's hooks find their session in the
 * core's React context, and errors are told apart by their classes) and the React that core
 * renders with (hooks run on the dispatcher of one React).
 */
const SHARED_CORE = /^@agate\/core(\/|$)/;
const SHARED_REACT = /^react(\/|$)/;

let registered = false;

/**
 * How the imports of an agent file (and of whatever it imports) resolve, so that an agent file
 * anywhere on disk runs on the CLI's `@agate/core`, one copy per process:
 *
 * - `@agate/core` always resolves to the CLI's copy, and `react` to the copy that core uses,
 *   wherever the importing file is (an agent project with its own `node_modules`, a package
 *   of agents, `@agate/testing` installed beside it). A second copy would fail at the first
 *   hook with "useGate() was called outside an Agate session".
 * - Another bare import (`zod`, `ai`) that does not resolve from the file's own folder resolves
 *   from the CLI's instead (a file in a folder with no `node_modules`). Files inside a
 *   node_modules folder are left alone there: a dependency's missing import is its own error.
 *
 * For `import` through Node's in-thread module hooks, and for `require` (tsx loads a `.tsx`
 * file outside an ESM package as CommonJS, through the CommonJS loader, which those hooks do
 * not see) through that loader's resolver. `from` is a module of the CLI; `resolveFromCli`
 * resolves a specifier as the CLI's own code would (`import.meta.resolve`).
 */
export function resolveAgentImportsFromCli(
  from: string,
  resolveFromCli: (specifier: string) => string,
): void {
  if (registered) return;
  registered = true;
  patchCommonJsResolution(resolveFromCli);
  let coreUrl: string | undefined;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (SHARED_CORE.test(specifier)) {
        return nextResolve(specifier, { ...context, parentURL: from });
      }
      if (SHARED_REACT.test(specifier)) {
        coreUrl ??= nextResolve('@agate/core', { ...context, parentURL: from }).url;
        return nextResolve(specifier, { ...context, parentURL: coreUrl });
      }
      try {
        return nextResolve(specifier, context);
      } catch (error) {
        const parent = context.parentURL;
        if (
          isNotFound(error) &&
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
        throw error;
      }
    },
  });
}

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

interface ParentModule {
  filename?: string | null;
}
type ResolveFilename = (
  request: string,
  parent: ParentModule | undefined,
  ...rest: unknown[]
) => string;
interface ModuleInternals {
  _resolveFilename: ResolveFilename;
  _nodeModulePaths(from: string): string[];
}

function patchCommonJsResolution(resolveFromCli: (specifier: string) => string): void {
  const Module = createRequire(import.meta.url)('node:module') as ModuleInternals;
  const original = Module._resolveFilename;
  let corePath: string | undefined;
  Module._resolveFilename = function resolveFilename(this: unknown, request, parent, ...rest) {
    if (SHARED_CORE.test(request)) return fileURLToPath(resolveFromCli(request));
    if (SHARED_REACT.test(request)) {
      corePath ??= fileURLToPath(resolveFromCli('@agate/core'));
      // As core itself would require it (its folder's node_modules), not through this patch.
      const asCore = {
        id: corePath,
        filename: corePath,
        paths: Module._nodeModulePaths(dirname(corePath)),
      };
      return original.call(this, request, asCore, ...rest);
    }
    try {
      return original.call(this, request, parent, ...rest);
    } catch (error) {
      const from = parent?.filename;
      if (
        isNotFound(error) &&
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
