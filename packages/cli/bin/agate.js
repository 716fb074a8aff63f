#!/usr/bin/env node
// The `agate` command. Installed, it runs the built `dist/`. In the Agate repository (where the
// sources are beside it; `pnpm agate` runs this file too) it runs the TypeScript sources
// through tsx, resolving `@agate/*` packages to their sources through the `@agate/source`
// export condition. Agent files load the same way in both (src/run/typescript-loader.ts).
import { existsSync } from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// package.json's engines.node, as numbers (a test checks that they agree): on each line, the
// first release whose module hooks tsx runs in the main thread. Before it, tsx's hooks run
// off-thread and an agent file outside an ES module package fails to load ("Cannot require()
// ES Module … in a cycle"); npm only warns about engines, so the command says it here.
const OLDEST = { 22: [22, 22, 3], 24: [24, 11, 1], 25: [25, 1, 0] };
const version = process.versions.node.split('.').map(Number);
const oldest = OLDEST[version[0]] ?? (version[0] > 25 ? version : [Number.POSITIVE_INFINITY]);
if (compare(version, oldest) < 0) {
  const lines = Object.values(OLDEST).map((v) => `${v.join('.')}+`);
  process.stderr.write(
    `agate: Node ${process.versions.node} cannot run agate: it needs Node ${lines.join(', ')} ` +
      'or 26 and later (package.json engines). Install one: https://nodejs.org/en/download\n',
  );
  process.exit(2);
}

function compare(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

// V8's compiled code for the modules loaded, kept on disk (the OS temporary directory) and
// reused by the next `agate`: a run starts without compiling the same hundreds of modules
// again. What `tsc` does too.
module.enableCompileCache();

const sources = new URL('../src/bin.ts', import.meta.url);
if (!existsSync(fileURLToPath(sources))) {
  await import(new URL('../dist/bin.js', import.meta.url).href);
} else {
  module.registerHooks({
    resolve: (specifier, context, next) =>
      next(specifier, { ...context, conditions: [...context.conditions, '@agate/source'] }),
  });
  const { register } = await import('tsx/esm/api');
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  // The CLI's own files, with the repository's settings; an agent file's registration
  // replaces this one (it covers these files too).
  globalThis[Symbol.for('agate.cli.sourceLoader')] = {
    root,
    unregister: register({ tsconfig: join(root, 'tsconfig.base.json') }),
  };
  await import(sources.href);
}
