import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { packedIn } from './pack-all.js';
import { LOCKED_PROJECTS, lockDrift, lockPath, readCommittedLock } from './packed-lock.js';
import { createPackedProject } from './packed-project.js';
import { ROOT } from './workspace.js';

/**
 * `pnpm packed:lock [--packed DIR] [--fresh]`: rewrites release/packed-lock/, the locks the
 * packed tests install from. By default npm starts from the committed locks and changes only
 * what the packages' ranges no longer allow (a new dependency, a raised range); `--fresh`
 * resolves everything anew from today's registry (what `pnpm check:registry` shows).
 * `--packed` reuses a folder `pnpm pack:all` wrote instead of building and packing again.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { packed: { type: 'string' }, fresh: { type: 'boolean', default: false } },
  });
  const scratch = mkdtempSync(join(tmpdir(), 'agate-lock-'));
  try {
    const { dir, packed } = packedIn(values.packed, scratch);
    const installed = await createPackedProject(
      dir,
      packed,
      scratch,
      values.fresh ? 'fresh' : 'update',
    );
    for (const project of LOCKED_PROJECTS) {
      const before = readCommittedLock(project);
      const lock = installed.locks[project];
      const file = lockPath(project);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
      const drift = before === undefined ? undefined : lockDrift(before, lock);
      const changes =
        drift === undefined
          ? 'new'
          : [
              ...drift.added.map((d) => `+ ${d.name}@${d.versions.join(', ')}`),
              ...drift.removed.map((d) => `- ${d.name}@${d.versions.join(', ')}`),
              ...drift.changed.map((d) => `~ ${d.name} ${d.from.join(', ')} → ${d.to.join(', ')}`),
            ].join('\n    ') || 'no version changed';
      process.stdout.write(
        `${relative(ROOT, file)}: ${Object.keys(lock.packages).length - 1} packages; ${changes}\n`,
      );
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
