import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';

/**
 * A test suite that needs a real system part (bubblewrap, PostgreSQL, Chromium) checks for it
 * with `requireSystem`. Where it is missing the suite skips, and `pnpm test` ends with one line
 * that names what was skipped and how to enable it (printed by `vitest.global-setup.ts`).
 * With `AGATE_REQUIRE_SYSTEM=1` (what `.ci/run` sets) a missing part that a Debian package
 * provides fails the suite instead: a CI machine where apt failed must not pass with the
 * sandbox escape suites never run.
 */
export interface SystemRequirement {
  /** The tests that need it, as the skip line names them: `sandbox escape suite`. */
  tests: string;
  /** What is missing, in a few words: `bubblewrap (bwrap)`. */
  needs: string;
  /** How to enable them: `apt-get install -y bubblewrap`. */
  enable: string;
  /**
   * The Debian package that provides the part (`bubblewrap`, `postgresql`,
   * `chromium-headless-shell`, `git`). With `AGATE_REQUIRE_SYSTEM=1`, a requirement naming one
   * throws a `SystemRequiredError` instead of skipping; one without (a Node fetched from the
   * registry, running as root) skips as before.
   */
  debianPackage?: string;
  /** A command that must be on PATH, or an absolute path that must exist. */
  command?: string;
  /** Any other check (a user-namespace probe, a server answering). */
  probe?: () => boolean;
}

/** The file the global setup reads at the end of the run; set by `vitest.global-setup.ts`. */
export const SKIPS_FILE_ENV = 'AGATE_TEST_SKIPS_FILE';

/** `AGATE_REQUIRE_SYSTEM=1`: a missing system part fails its suite (`.ci/run` sets it). */
export const REQUIRE_SYSTEM_ENV = 'AGATE_REQUIRE_SYSTEM';

/**
 * Thrown by `requireSystem` under `AGATE_REQUIRE_SYSTEM=1` when a system part is missing:
 * the message names the Debian package to install.
 */
export class SystemRequiredError extends Error {
  override readonly name = 'SystemRequiredError';
  constructor(
    /** The suite that needs it. */
    readonly tests: string,
    /** The Debian package to install. */
    readonly debianPackage: string,
    needs: string,
  ) {
    super(
      `${tests} needs ${needs}, which is missing, and ${REQUIRE_SYSTEM_ENV}=1 forbids skipping: ` +
        `install the Debian package ${debianPackage} (apt-get install -y ${debianPackage}).`,
    );
  }
}

/** True when `env` asks for missing system parts to fail rather than skip. */
export function systemRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[REQUIRE_SYSTEM_ENV];
  return value !== undefined && value !== '' && value !== '0';
}

const seen = new Map<string, boolean>();

/**
 * True when the part is there; otherwise records one skip line and returns false, or, with
 * `AGATE_REQUIRE_SYSTEM=1` and a `debianPackage`, throws a `SystemRequiredError` (each call:
 * every suite that needs it fails, not only the first).
 */
export function requireSystem(requirement: SystemRequirement): boolean {
  const key = `${requirement.tests}\0${requirement.needs}`;
  // Read per call: a test may set the variable after another suite checked the same part.
  const mustHave = systemRequired() ? requirement.debianPackage : undefined;
  let ok = seen.get(key);
  if (ok === undefined) {
    ok =
      (requirement.command === undefined || commandExists(requirement.command)) &&
      (requirement.probe === undefined || safeProbe(requirement.probe));
    seen.set(key, ok);
    if (!ok && mustHave === undefined) recordSkip(requirement);
  }
  if (!ok && mustHave !== undefined) {
    throw new SystemRequiredError(requirement.tests, mustHave, requirement.needs);
  }
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
