import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';

/**
 * A test suite that needs a real system part (bubblewrap, PostgreSQL, Chromium) checks for it
 * with `requireSystem`. Where it is missing the suite skips, and `pnpm test` ends with one line
 * that names what was skipped and how to enable it (printed by `vitest.global-setup.ts`).
 */
export interface SystemRequirement {
  /** The tests that need it, as the skip line names them: `sandbox escape suite`. */
  tests: string;
  /** What is missing, in a few words: `bubblewrap (bwrap)`. */
  needs: string;
  /** How to enable them: `apt-get install -y bubblewrap`. */
  enable: string;
  /** A command that must be on PATH, or an absolute path that must exist. */
  command?: string;
  /** Any other check (a user-namespace probe, a server answering). */
  probe?: () => boolean;
}

/** The file the global setup reads at the end of the run; set by `vitest.global-setup.ts`. */
export const SKIPS_FILE_ENV = 'AGATE_TEST_SKIPS_FILE';

const seen = new Map<string, boolean>();

/** True when the part is there; otherwise records one skip line and returns false. */
export function requireSystem(requirement: SystemRequirement): boolean {
  const key = `${requirement.tests}\0${requirement.needs}`;
  const known = seen.get(key);
  if (known !== undefined) return known;
  const ok =
    (requirement.command === undefined || commandExists(requirement.command)) &&
    (requirement.probe === undefined || safeProbe(requirement.probe));
  seen.set(key, ok);
  if (!ok) recordSkip(requirement);
  return ok;
}

/** True when `command` is an existing absolute path or is found on PATH. */
export function commandExists(command: string): boolean {
  if (command.startsWith('/')) return existsSync(command);
  const found = spawnSync('sh', ['-c', `command -v ${JSON.stringify(command)}`], {
    stdio: 'ignore',
  });
  return found.status === 0;
}

function safeProbe(probe: () => boolean): boolean {
  try {
    return probe();
  } catch {
    return false;
  }
}

function recordSkip({ tests, needs, enable }: SystemRequirement): void {
  const file = process.env[SKIPS_FILE_ENV];
  const line = `${JSON.stringify({ tests, needs, enable })}\n`;
  if (file === undefined) {
    process.stderr.write(`skipped: ${tests} (${needs} missing; to enable: ${enable})\n`);
    return;
  }
  appendFileSync(file, line);
}

/** The one line `pnpm test` prints at the end, or undefined when nothing was skipped. */
export function skipSummary(lines: readonly string[]): string | undefined {
  const byTests = new Map<string, { needs: string; enable: string }>();
  for (const line of lines) {
    if (line.trim() === '') continue;
    try {
      const { tests, needs, enable } = JSON.parse(line) as SystemRequirement;
      byTests.set(tests, { needs, enable });
    } catch {
      // A torn line from a worker that died mid-write: nothing to report for it.
    }
  }
  if (byTests.size === 0) return undefined;
  const parts = [...byTests].map(
    ([tests, { needs, enable }]) => `${tests} (${needs} missing; to enable: ${enable})`,
  );
  return `Skipped because system packages are missing: ${parts.join('; ')}. Or run bash .ci/run, which installs them.`;
}
