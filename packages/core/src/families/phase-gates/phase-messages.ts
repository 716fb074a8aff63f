import type { ToolCategory } from '../../checks/tool-category.js';
import type { CheckRecord, PhaseLedger } from './phase-ledger-state.js';
import type {
  PhaseName,
  PhaseStatus,
  PhaseTools,
  VerificationJudgement,
  VerificationLevel,
} from './phase-types.js';

// What to type in a shell for each kind of work (shell tools get these as examples).
const SHELL_EXAMPLES: Record<ToolCategory, string> = {
  discovery: 'ls, find',
  search: 'grep -rn, rg',
  read: 'cat, sed -n, head',
  patch: 'sed -i, a heredoc into the file, git apply',
  verify: 'the tests, e.g. pytest, npm test, go test, or the script that reproduces the issue',
  other: '',
};

/** The agent's real tools that can do one kind of work, as a phrase: `read_file, bash (cat, sed -n)`. */
export function toolsFor(tools: PhaseTools, category: ToolCategory): string {
  const names = [
    ...(tools.byCategory[category] ?? []),
    ...tools.shell.map((s) => `${s} (${SHELL_EXAMPLES[category]})`),
    ...tools.dynamic,
  ];
  return names.length > 0 ? names.join(', ') : `(no ${category} tool is available)`;
}

/** One line per missing phase: what is missing and the tools that satisfy it. */
export function missingLines(
  status: PhaseStatus,
  ledger: PhaseLedger,
  judgement: VerificationJudgement,
  tools: PhaseTools,
  level: 'any' | VerificationLevel,
): Array<{ phase: PhaseName; text: string }> {
  const lines: Array<{ phase: PhaseName; text: string }> = [];
  if (!status.understanding) {
    const needs: string[] = [];
    if (status.evidence.filesRead === 0)
      needs.push(`read the relevant files (with ${toolsFor(tools, 'read')})`);
    if (!status.evidence.searchUsed && status.evidence.patchesProposed === 0) {
      needs.push(`search the code (with ${toolsFor(tools, 'search')})`);
    }
    lines.push({ phase: 'understanding', text: `understanding: ${needs.join(' and ')}` });
  }
  if (!status.change) {
    lines.push({
      phase: 'change',
      text: `change: make the change the task asks for (with ${toolsFor(tools, 'patch')})`,
    });
  }
  if (status.change && !status.verification) {
    lines.push({
      phase: 'verification',
      text: `verification: ${verificationNeed(ledger, judgement, tools, level)}`,
    });
  } else if (!status.change) {
    lines.push({
      phase: 'verification',
      text: `verification: after the change, run the checks (with ${toolsFor(tools, 'verify')})`,
    });
  }
  return lines;
}

function verificationNeed(
  ledger: PhaseLedger,
  judgement: VerificationJudgement,
  tools: PhaseTools,
  level: 'any' | VerificationLevel,
): string {
  const verify = toolsFor(tools, 'verify');
  const what = changedWhat(judgement.unverified);
  const last = ledger.lastVerify;
  if (last !== null && !last.ran && last.step >= (ledger.firstChangeStep ?? 0)) {
    return `your last verification${last.program ? ` (${last.program})` : ''} did not run (${last.why ?? 'it did not run'}): run checks that exist to verify ${what} (with ${verify})`;
  }
  const strict = level !== 'any' && level !== 'ran';
  if (judgement.unverified.length === 0 && strict && ledger.lastCheck?.outcome === 'failed') {
    return `the checks have not passed yet: your last check ${checkText(ledger.lastCheck)} failed${saying(ledger.lastCheck)}. Fix the failures and run the checks again until they pass (with ${verify})`;
  }
  if (
    judgement.unverified.length === 0 &&
    (level === 'project-tests' || level === 'project-tests-once')
  )
    return projectTestsNeed(ledger, judgement, verify, level);
  if (ledger.verifyUsed)
    return `you changed files after your last verification: verify ${what} again (with ${verify})`;
  return `nothing has verified ${what} yet: run the tests or a script that shows the fix works (with ${verify})`;
}

/** What `'project-tests'` still needs once a check ran after the last change and did not fail. */
function projectTestsNeed(
  ledger: PhaseLedger,
  judgement: VerificationJudgement,
  verify: string,
  level: VerificationLevel,
): string {
  const tests = ledger.lastProjectTests;
  const run = `run the project's own tests that cover ${changedWhat(judgement.untested)} (its test runner, e.g. pytest, npm test, go test, cargo test, mvn test) and make them pass (with ${verify})`;
  // At 'project-tests-once' only a run that never ran them is refused for it.
  if (level === 'project-tests-once' && tests === undefined) {
    const script = ledger.lastCheck?.kind === 'agent-script' ? ledger.lastCheck.label : undefined;
    return `the project's own tests have not run in this run${script ? ` (only your own script ran: ${script}; a script you wrote in this run does not count as them)` : ''}: ${run}`;
  }
  if (judgement.untested.length === 0 && tests?.outcome === 'failed')
    return `the project's tests failed: ${checkText(tests)} failed${saying(tests)}. Fix the failures and run them again until they pass (with ${verify})`;
  const check = ledger.lastCheck;
  if (check?.kind === 'agent-script')
    return `only your own script ran after your change (${check.label}); a script you wrote in this run does not count as the project's tests: ${run}`;
  if (check !== undefined)
    return `the checks after your change (${check.label}) were not the project's own tests: ${run}`;
  return `the project's own tests have not run after your change: ${run}`;
}

function changedWhat(paths: readonly string[]): string {
  const changed = paths.slice(0, 5).join(', ');
  return changed === '' ? 'your change' : `your change to ${changed}`;
}

/** `(pytest -q, step 7)`. */
function checkText(check: CheckRecord): string {
  return `(${check.label}, step ${check.step})`;
}

/** `: exit code 1, "=== 1 failed, 2 passed in 0.4s ==="`, or nothing when nothing was said. */
function saying(check: CheckRecord): string {
  const said = [
    ...(check.exitCode !== undefined ? [`exit code ${check.exitCode}`] : []),
    ...(check.summary !== undefined ? [`"${check.summary}"`] : []),
  ];
  return said.length > 0 ? `: ${said.join(', ')}` : '';
}

export function noProgressWarning(tools: PhaseTools): string {
  return [
    'WARNING: You have not made progress yet: so far you only looked around.',
    'Next, you must:',
    `1. Search for the relevant code (with ${toolsFor(tools, 'search')})`,
    `2. Read the files you found (with ${toolsFor(tools, 'read')})`,
    `3. Make the change (with ${toolsFor(tools, 'patch')})`,
    `4. Verify it (with ${toolsFor(tools, 'verify')})`,
    'Do not finish yet.',
  ].join('\n');
}

export function escalationWarning(
  step: number,
  tools: PhaseTools,
  hint: string | undefined,
): string {
  const discovery = [
    ...(tools.byCategory.discovery ?? []),
    ...tools.shell.map((s) => `${s} (${SHELL_EXAMPLES.discovery})`),
  ];
  return [
    `CRITICAL (step ${step}): You are stuck. ${step} steps and no progress.`,
    'You MUST use a progress tool NOW:',
    `- search: ${toolsFor(tools, 'search')}`,
    `- read: ${toolsFor(tools, 'read')}`,
    `- change: ${toolsFor(tools, 'patch')}`,
    `- verify: ${toolsFor(tools, 'verify')}`,
    ...(hint ? [`Suggested first action: ${hint}`] : []),
    discovery.length > 0
      ? `DO NOT call discovery tools again (${discovery.join(', ')}).`
      : 'Do not keep looking around.',
  ].join('\n');
}

export function missingWarning(step: number, lines: ReadonlyArray<{ text: string }>): string {
  return [
    `WARNING (step ${step}): the task is not done yet. Still missing:`,
    ...lines.map((l) => `- ${l.text}`),
    'Continue working. Do not finish yet.',
  ].join('\n');
}

export function stallWarning(
  stall: number,
  unverified: readonly string[],
  tools: PhaseTools,
): string {
  const next =
    unverified.length > 0
      ? `Verify your change to ${unverified.slice(0, 5).join(', ')} now (with ${toolsFor(tools, 'verify')}), or make the next change (with ${toolsFor(tools, 'patch')}).`
      : `Make the next change (with ${toolsFor(tools, 'patch')}) or run the checks (with ${toolsFor(tools, 'verify')}); if the work is done and verified, finish.`;
  return `WARNING: ${stall} steps in a row without a change or a verification since your first change. ${next}`;
}

/**
 * One missing phase as the reason of a refused exit (the `exit:blocked` event, and the
 * `Not accepted: …` result of a refused final answer), with its count as a gate's reasons have.
 */
export function refusalReason(text: string, blocks: number, maxBlocks: number): string {
  // A replay counts without a bound (maxBlocks Infinity): the count alone.
  const of = Number.isFinite(maxBlocks) ? ` of ${maxBlocks}` : '';
  return `Phase gates (refusal ${blocks}${of}): ${text}`;
}

export function refusalNotice(
  lines: ReadonlyArray<{ text: string }>,
  blocks: number,
  maxBlocks: number,
): string {
  const left = maxBlocks - blocks;
  return [
    `EXIT REFUSED (phase gates, refusal ${blocks} of ${maxBlocks}): you tried to finish, but the work is not complete. Missing:`,
    ...lines.map((l) => `- ${l.text}`),
    left === 0
      ? 'The next attempt to finish without this ends the run as blocked (not completed).'
      : `${left} more attempt${left === 1 ? '' : 's'} to finish without this will be refused; the one after that ends the run as blocked (not completed).`,
  ].join('\n');
}
