import type { SessionState } from '@agate/core';
import type {
  CheckpointLedgerEntry,
  CheckpointRecord,
  LedgerEntry,
  ToolLedgerEntry,
} from '@agate/core/guards';
import { formatTable, preview, shortTime } from '../format/table.js';

/** Snapshots written before checkpoints existed lack the fields; they read as empty. */
function recordsOf(state: SessionState): Array<[string, CheckpointRecord]> {
  return Object.entries(state.guards.checkpoints?.records ?? {});
}

function ledgerOf(state: SessionState): CheckpointLedgerEntry[] {
  return state.guards.checkpoints?.ledger ?? [];
}

function toolLedgerOf(state: SessionState): ToolLedgerEntry[] {
  return state.guards.approvals?.ledger ?? [];
}

/**
 * What the session's checkpoints say in one cell: the pending one(s) first (they wait for a
 * person), else the open one, else how many were approved. Empty when it has none.
 */
export function checkpointCell(state: SessionState): string {
  const records = recordsOf(state);
  const pending = records.filter(([, r]) => r.state === 'pending');
  const calls = (state.guards.approvals?.calls ?? []).filter((r) => r.state === 'pending').length;
  const held = calls > 0 ? [`${calls} tool call${calls === 1 ? '' : 's'} pending`] : [];
  if (pending.length > 0 || calls > 0) {
    return [...pending.map(([id]) => `${id} pending`), ...held].join(', ');
  }
  const open = records.find(([, r]) => r.state === 'unlocked');
  if (open !== undefined) return `${open[0]} open`;
  const approved = records.filter(([, r]) => r.state === 'approved').length;
  return approved > 0 ? `${approved} approved` : '';
}

/** `agate show`'s checkpoint and ledger sections (lines, starting with a blank one). */
export function checkpointSection(state: SessionState): string[] {
  const records = recordsOf(state);
  const ledger = ledgerOf(state);
  const toolLedger = toolLedgerOf(state);
  if (
    records.length === 0 &&
    ledger.length === 0 &&
    toolLedger.length === 0 &&
    (state.guards.approvals?.calls ?? []).length === 0
  ) {
    return ['', 'Checkpoints', '  (none)'];
  }
  const lines = ['', 'Checkpoints'];
  lines.push(
    indent(
      formatTable(
        ['id', 'state', 'ticks open', 'opened at tick', 'why pending'],
        records.map(([id, r]) => [
          id,
          r.state,
          String(r.ticks),
          String(r.openedAtTick),
          r.reason === undefined ? '' : preview(`${r.cause ?? ''}: ${r.reason}`, 70),
        ]),
      ),
    ),
  );
  const held = state.guards.approvals?.calls ?? [];
  if (held.length > 0) {
    lines.push('', 'Tool calls held for approval (agate approve / agate deny <session> <call id>)');
    lines.push(
      indent(
        formatTable(
          ['call id', 'tool', 'state', 'tick', 'input'],
          held.map((r) => [
            r.id,
            r.toolName,
            r.state === 'pending' ? 'pending' : `${r.state} by ${r.by ?? '?'}`,
            String(r.tick),
            preview(JSON.stringify(r.input) ?? '', 60),
          ]),
        ),
      ),
    );
  }
  lines.push('', `Checkpoint ledger (${ledger.length} entr${ledger.length === 1 ? 'y' : 'ies'})`);
  for (const entry of ledger) lines.push(`  ${ledgerLine(entry)}`);
  if (toolLedger.length > 0) {
    const n = toolLedger.length;
    lines.push('', `Tool-call ledger (${n} entr${n === 1 ? 'y' : 'ies'})`);
    for (const entry of toolLedger) lines.push(`  ${ledgerLine(entry)}`);
  }
  return lines;
}

/** One ledger entry: where, what, who, when, what was said, and whether it is signed. */
export function ledgerLine(entry: LedgerEntry): string {
  const said = entry.summary ?? entry.reason ?? entry.note ?? entry.feedback ?? undefined;
  const label =
    entry.feedback !== undefined ? 'feedback' : entry.note !== undefined ? 'note' : undefined;
  return [
    `#${entry.seq}`,
    `tick ${entry.tick}`,
    entry.checkpoint,
    entry.kind,
    `by ${entry.by}`,
    shortTime(entry.at),
    ...(entry.answers !== undefined ? [`answers #${entry.answers}`] : []),
    ...(said !== undefined
      ? [`${label ? `${label} ` : ''}${JSON.stringify(preview(said, 80))}`]
      : []),
    entry.signature !== undefined ? `signed (key ${entry.keyId ?? '?'})` : 'unsigned',
  ].join('  ');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
