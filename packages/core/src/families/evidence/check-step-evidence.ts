import type { Ledger } from './evidence-ledger.js';
import { normalizeCommand } from './normalize.js';
import type { StepEvidenceInput, TodoEvidence } from './todo-types.js';

export type EvidenceCheck = { ok: true; evidence: TodoEvidence } | { ok: false; message: string };

/**
 * Checks `complete_step`'s evidence against the receipts of this turn. `verification` must be
 * the command of a `command` receipt whose latest run succeeded; each of `files` needs a
 * successful read or edit receipt, each of `diff` a successful edit receipt. `manual` is taken
 * as it is and recorded as unverified. Every problem is reported at once.
 */
export function checkStepEvidence(
  ledger: Ledger,
  input: StepEvidenceInput,
  tick: number,
): EvidenceCheck {
  const verification = nonEmpty(input.verification);
  const manual = nonEmpty(input.manual);
  const files = input.files?.filter((f) => f.trim() !== '') ?? [];
  const diff = input.diff?.filter((f) => f.trim() !== '') ?? [];
  if (
    verification === undefined &&
    manual === undefined &&
    files.length === 0 &&
    diff.length === 0
  ) {
    return {
      ok: false,
      message:
        'complete_step needs evidence: give at least one of verification (a command you ran in this turn), files (paths you read or edited in this turn), diff (paths you edited in this turn) or manual (your own account; recorded as unverified).',
    };
  }

  const problems: string[] = [];
  const evidence: TodoEvidence = { verified: false, tick };
  if (verification !== undefined) {
    const command = normalizeCommand(verification);
    const found = ledger.findCommand(command);
    if (found.status === 'ok') evidence.command = command;
    else if (found.status === 'failed') {
      problems.push(
        `The command "${command}" ran but failed (its latest run in this turn, tick ${found.receipt.tick}). Fix what fails, run it again until it succeeds, then sign off.`,
      );
    } else {
      const ran = commandsRun(ledger);
      problems.push(
        `The command "${command}" was never run in this turn. Run it first, then call complete_step with exactly that command.` +
          (ran.length > 0
            ? ` Commands run in this turn: ${ran.map((c) => `"${c}"`).join(', ')}.`
            : ''),
      );
    }
  }
  if (files.length > 0) {
    const found = ledger.findPaths(['read', 'edit'], files);
    for (const p of found.failed)
      problems.push(`files: reading or editing "${p}" failed in this turn.`);
    for (const p of found.missing)
      problems.push(`files: "${p}" was not read or edited in this turn.`);
    if (found.found.length > 0) evidence.files = found.found;
  }
  if (diff.length > 0) {
    const found = ledger.findPaths('edit', diff);
    for (const p of found.failed) problems.push(`diff: editing "${p}" failed in this turn.`);
    for (const p of found.missing) problems.push(`diff: "${p}" was not edited in this turn.`);
    if (found.found.length > 0) evidence.diff = found.found;
  }
  if (problems.length > 0) {
    return {
      ok: false,
      message: `complete_step refused: the evidence does not match what ran in this turn.\n${problems.map((p) => `- ${p}`).join('\n')}`,
    };
  }
  evidence.verified = verification !== undefined || files.length > 0 || diff.length > 0;
  if (manual !== undefined) evidence.manual = manual;
  return { ok: true, evidence };
}

/** One line for the rendered list and the tool result. */
export function describeEvidence(evidence: TodoEvidence): string {
  const checked = [
    evidence.command !== undefined ? `ran "${evidence.command}"` : '',
    evidence.files?.length ? `files ${evidence.files.join(', ')}` : '',
    evidence.diff?.length ? `edited ${evidence.diff.join(', ')}` : '',
  ].filter(Boolean);
  const parts: string[] = [];
  if (evidence.verified) parts.push(`verified: ${checked.join('; ')}`);
  if (evidence.manual !== undefined) {
    parts.push(
      `${evidence.verified ? 'plus a manual note' : 'manual'} (unverified): "${evidence.manual}"`,
    );
  }
  return parts.join('; ');
}

function commandsRun(ledger: Ledger): string[] {
  const seen = new Set<string>();
  for (const r of ledger.receipts()) {
    if (r.evidence?.kind === 'command') seen.add(normalizeCommand(r.evidence.command));
  }
  return [...seen].slice(-10);
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}
