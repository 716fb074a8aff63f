import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './workspace.js';

/**
 * `pnpm test` reads nothing that changes without a commit: its dry run (the packed tests) asks
 * the registry nothing (`--no-registry`). Before, `changeset publish-plan` asked it which
 * versions it lacked, and an unreachable registry failed `pnpm test` with no commit at all.
 */
describe('pnpm release', () => {
  it('`pnpm test` ends with the dry run that asks the registry nothing', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const steps = (scripts.test ?? '').split('&&').map((step) => step.trim());
    expect(steps.at(-1)).toBe('pnpm release --dry-run --no-registry');
  });

  it('--no-registry without --dry-run: one line, exit 1, before anything is built', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'release/release.ts', '--no-registry'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'release: --no-registry is for a dry run (pnpm release --dry-run --no-registry): a release publishes to the registry.\n',
    );
    expect(run.status).toBe(1);
  });
});
