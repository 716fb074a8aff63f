import { INTERPRETERS } from '../../checks/shell-classifier/programs.js';
import type { ShellPart } from '../../checks/shell-classifier/shell-part.js';
import { createdByRun } from './file-origin.js';
import { type CheckKind, findFile, type PhaseLedger } from './phase-ledger-state.js';

export type { CheckKind };

/** What kind of check a verification part is, given what the run has created so far. */
export function checkKind(ledger: PhaseLedger, part: ShellPart): CheckKind {
  if (part.suite !== undefined)
    return part.suite.some((target) => isRunsOwn(ledger, target))
      ? 'agent-script'
      : 'project-tests';
  if (part.op !== 'run') return 'other';
  const script = part.paths[0];
  if (script === undefined)
    return part.program !== undefined && INTERPRETERS.test(part.program) ? 'agent-script' : 'other';
  if (isRunsOwn(ledger, script)) return 'agent-script';
  // The repository's own test file run directly (`python test_requests.py`, unittest's main).
  return TEST_FILE.test(script) ? 'project-tests' : 'other';
}

const TEST_FILE = /(?:^|\/)(?:test_[^/]*|[^/]*_tests?|tests?)\.py$/;

/**
 * Whether the run made this file, or the module a dotted test label names (`my_app.tests`):
 * it wrote it whole first, or made the directory it is in. A file the calls never showed
 * existed before. A label naming an existing package runs its suite even when the run added a
 * test file to it.
 */
function isRunsOwn(ledger: PhaseLedger, target: string): boolean {
  const found = findFile(ledger, target);
  if (found !== undefined) return createdByRun(ledger, found.path, found.record);
  // A script written through a per-tool write whose file the calls did not record.
  if (Object.hasOwn(ledger.scripts, target)) return true;
  if (/^[A-Za-z_][\w.]*$/.test(target) && !target.endsWith('.py')) {
    const module = target.replace(/\./g, '/');
    return Object.entries(ledger.files).some(
      ([path, record]) =>
        record.created &&
        (path === `${module}.py` ||
          path.endsWith(`/${module}.py`) ||
          path === module ||
          path.endsWith(`/${module}`)),
    );
  }
  return false;
}
