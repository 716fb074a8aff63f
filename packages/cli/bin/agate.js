#!/usr/bin/env node
// The `agate` command. Installed, it runs the built `dist/`. In the Agate repository (no build)
// it runs the TypeScript sources through tsx, resolving `@agate/*` packages to their sources
// through the `@agate/source` export condition, the way `pnpm agate` does.
import { existsSync } from 'node:fs';
import module, { register } from 'node:module';
import { fileURLToPath } from 'node:url';

// V8's compiled code for the modules loaded, kept on disk (the OS temporary directory) and
// reused by the next `agate`: a run starts without compiling the same hundreds of modules
// again. Node 22.1 and later; what `tsc` does too.
module.enableCompileCache?.();

const built = new URL('../dist/bin.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const addSourceCondition = `export async function resolve(specifier, context, next) {
    return next(specifier, { ...context, conditions: [...context.conditions, '@agate/source'] });
  }`;
  register(`data:text/javascript,${encodeURIComponent(addSourceCondition)}`);
  const { register: registerTsx } = await import('tsx/esm/api');
  // JSX through React's automatic runtime for every file (the CLI's sources and an agent file
  // anywhere on disk, inside the repository's tsconfig.json `include` or not).
  registerTsx({ tsconfig: fileURLToPath(new URL('../agent-tsconfig.json', import.meta.url)) });
  await import(new URL('../src/bin.ts', import.meta.url).href);
}
