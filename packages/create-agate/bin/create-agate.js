#!/usr/bin/env node
// The `create-agate` command. Installed, it runs the built `dist/`. In the Agate repository
// (no build: `pnpm pack:all` removes `dist/` after packing) it runs the TypeScript sources
// through tsx, a dev dependency of the repository.
import { existsSync } from 'node:fs';

const built = new URL('../dist/bin.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { tsImport } = await import('tsx/esm/api');
  await tsImport('../src/bin.ts', import.meta.url);
}
