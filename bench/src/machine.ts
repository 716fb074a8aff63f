import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, platform, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadedReactBuild } from './react-build.js';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface MachineInfo {
  date: string;
  node: string;
  platform: string;
  cpuModel: string;
  cpuCount: number;
  totalMemory: number;
  nodeEnv: string;
  reactBuild: string;
  /** Where `@agate/core` was loaded from: its built `dist/` (what users run) or its sources. */
  agateFrom: 'dist' | 'sources';
  versions: Record<string, string>;
  commit: string;
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  const core = createRequire(fileURLToPath(import.meta.resolve('@agate/core')));
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${platform()} ${release()} ${process.arch}`,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cpuCount: list.length,
    totalMemory: totalmem(),
    nodeEnv: process.env.NODE_ENV ?? '(unset)',
    reactBuild: loadedReactBuild(),
    agateFrom: import.meta.resolve('@agate/core').includes('/dist/') ? 'dist' : 'sources',
    versions: {
      ai: versionOf('ai', createRequire(import.meta.url)),
      react: versionOf('react', createRequire(import.meta.url)),
      'react-reconciler': versionOf('react-reconciler', core),
      immer: versionOf('immer', core),
      zod: versionOf('zod', createRequire(import.meta.url)),
    },
    commit: gitCommit(),
  };
}

/** The version in a package's package.json, found by walking up from its entry point. */
export function versionOf(name: string, require: NodeJS.Require): string {
  try {
    let dir = dirname(require.resolve(name));
    for (let i = 0; i < 6; i++) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
          name?: string;
          version?: string;
        };
        if (pkg.name === name && pkg.version) return pkg.version;
      } catch {
        // no package.json at this level
      }
      dir = dirname(dir);
    }
  } catch {
    // not resolvable from here
  }
  return 'unknown';
}

function gitCommit(): string {
  try {
    const run = (args: string[]) =>
      execFileSync('git', args, {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    const sha = run(['rev-parse', '--short', 'HEAD']);
    const dirty = run(['status', '--porcelain']) !== '';
    return dirty ? `${sha} + uncommitted changes` : sha;
  } catch {
    return 'unknown';
  }
}
