import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { InstallFacts } from './node-modules.js';
import { megabytes } from './node-modules.js';
import { packedIn } from './pack-all.js';
import {
  LOCKED_PROJECTS,
  type LockDrift,
  type Lockfile,
  lockDrift,
  RELOCK_COMMAND,
  readCommittedLock,
  versionsByName,
} from './packed-lock.js';
import { createPackedProject, RUNTIME_LIMITS } from './packed-project.js';

/**
 * `pnpm check:registry [--packed DIR]`: what a new user would get today. Installs the packed
 * tarballs fresh from the registry, without the committed locks (release/packed-lock/), and
 * reports how that differs from them: new, changed and removed versions, packages installed
 * twice, and the runtime project's package count and size against the limits
 * (RUNTIME_LIMITS; docs/getting-started.md). Exits 1 when a limit is broken: more packages or
 * bytes than the limits, or two copies of an AI SDK package (`ai`, `@ai-sdk/*`), which the
 * packages pin to share one. Not part of `pnpm test`, which installs from the locks.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { packed: { type: 'string' } } });
  const scratch = mkdtempSync(join(tmpdir(), 'agate-registry-'));
  try {
    const { dir, packed } = packedIn(values.packed, scratch);
    const fresh = await createPackedProject(dir, packed, scratch, 'fresh');
    const lines: string[] = [];
    for (const project of LOCKED_PROJECTS) {
      const committed = readCommittedLock(project);
      lines.push('', `${project}:`);
      if (committed === undefined) {
        lines.push(`  no committed lock (run \`${RELOCK_COMMAND}\`)`);
        continue;
      }
      lines.push(...describeDrift(lockDrift(committed, fresh.locks[project])));
    }
    const broken = brokenLimits(fresh.runtime, fresh.locks['runtime-only']);
    lines.push(
      '',
      `runtime (@agate/core + @agate/cli and their peers), fresh from the registry: ${fresh.runtime.packages} packages, ` +
        `${megabytes(fresh.runtime.bytes)} (${megabytes(fresh.runtime.diskBytes)} on disk); ` +
        `limits ${RUNTIME_LIMITS.packages} packages, ${megabytes(RUNTIME_LIMITS.bytes)}`,
      ...(broken.length === 0 ? ['all limits kept'] : broken.map((b) => `LIMIT BROKEN: ${b}`)),
    );
    process.stdout.write(`${lines.join('\n')}\n`);
    if (broken.length > 0) process.exitCode = 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The report's lines for one project. */
export function describeDrift(drift: LockDrift): string[] {
  const lines = [
    ...drift.changed.map((d) => `  changed ${d.name}: ${d.from.join(', ')} → ${d.to.join(', ')}`),
    ...drift.added.map((d) => `  new     ${d.name}@${d.versions.join(', ')}`),
    ...drift.removed.map((d) => `  gone    ${d.name}@${d.versions.join(', ')}`),
    ...drift.duplicated.map((d) => `  twice   ${d.name}: ${d.versions.join(', ')}`),
  ];
  return lines.length === 0 ? ['  the same versions as the committed lock'] : lines;
}

/** The runtime limits a fresh install breaks, as sentences (empty: none). */
export function brokenLimits(runtime: InstallFacts, lock: Lockfile): string[] {
  const broken: string[] = [];
  if (runtime.packages > RUNTIME_LIMITS.packages) {
    broken.push(`${runtime.packages} packages (at most ${RUNTIME_LIMITS.packages})`);
  }
  for (const [what, bytes] of [
    ['bytes', runtime.bytes],
    ['on disk', runtime.diskBytes],
  ] as const) {
    if (bytes > RUNTIME_LIMITS.bytes) {
      broken.push(`${megabytes(bytes)} ${what} (at most ${megabytes(RUNTIME_LIMITS.bytes)})`);
    }
  }
  for (const [name, versions] of versionsByName(lock)) {
    if ((name === 'ai' || name.startsWith('@ai-sdk/')) && versions.length > 1) {
      broken.push(`two copies of ${name}: ${versions.join(', ')}`);
    }
  }
  return broken;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  await main();
}
