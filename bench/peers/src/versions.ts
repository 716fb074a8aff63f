import { createRequire } from 'node:module';
import { versionOf } from '../../src/machine.js';
import type { Side } from './side.js';

const require = createRequire(import.meta.url);

/** Every package the sides name, with the version installed here. */
export function installedVersions(sides: readonly Side[]): Record<string, string> {
  const names = [...new Set(sides.flatMap((side) => side.packages))];
  return Object.fromEntries(names.map((name) => [name, versionOf(name, require)]));
}
