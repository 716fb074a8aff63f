import { childProcess } from '../ground/builtins.js';
import { SandboxUnavailableError } from './shell-errors.js';

type Probe = { ok: true } | { ok: false; error: SandboxUnavailableError };
const checked = new Map<string, Probe>();

/**
 * Whether bubblewrap can start a sandbox here: the binary, and user namespaces it can create.
 * Checked once per process (a few milliseconds); the answer is cached.
 */
export function checkSandbox(bwrap = 'bwrap'): void {
  let result = checked.get(bwrap);
  if (result === undefined) {
    result = probe(bwrap);
    checked.set(bwrap, result);
  }
  if (!result.ok) throw result.error;
}

function probe(bwrap: string): Probe {
  const run = childProcess().spawnSync(
    bwrap,
    ['--ro-bind', '/', '/', '--unshare-all', '--', '/bin/true'],
    {
      encoding: 'utf8',
      timeout: 10_000,
    },
  );
  if (run.error !== undefined) {
    const missing = (run.error as NodeJS.ErrnoException).code === 'ENOENT';
    return {
      ok: false,
      error: new SandboxUnavailableError(
        missing
          ? '<Shell> runs every command in a bubblewrap sandbox, and bubblewrap (bwrap) is not installed. ' +
              'Install it (Debian/Ubuntu: apt-get install bubblewrap). To run commands without a sandbox, ' +
              'say so: <Shell sandbox={false}>.'
          : `<Shell> could not start bubblewrap: ${run.error.message}.`,
      ),
    };
  }
  if (run.status !== 0) {
    return {
      ok: false,
      error: new SandboxUnavailableError(
        `bubblewrap cannot create a sandbox here: ${run.stderr.trim() || `exit code ${run.status}`}. ` +
          'User namespaces are probably off: enable them (sysctl kernel.unprivileged_userns_clone=1, or on ' +
          'Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0). To run commands without a sandbox, ' +
          'say so: <Shell sandbox={false}>.',
      ),
    };
  }
  return { ok: true };
}
