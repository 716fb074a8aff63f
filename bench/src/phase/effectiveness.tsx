import { type AgateEvent, createMemoryStore, createSession, type RunResult } from '@agate/core';
import type { PhaseStatus } from '@agate/core/guards';
import { type ScriptedCall, scriptedModel } from '@agate/testing';
import { encode } from 'gpt-tokenizer';
import { makePolicy, POLICY_NAMES, type PolicyName, phaseTextOf } from './policies.js';
import { type PhaseMode, START_FILES, WeakAgent } from './weak-agent.js';

export const MODES: readonly PhaseMode[] = ['none', 'warn', 'block'];
const MAX_TICKS = 30;

export interface EffectivenessRow {
  policy: PolicyName;
  mode: PhaseMode;
  status: RunResult['status'];
  ticks: number;
  /** Completed without readiness. */
  premature: boolean;
  /** Ended (completed or blocked) within `maxTicks`. */
  endedWithinBounds: boolean;
  /** Exit refusals when readiness held at the tick before. */
  falseBlocks: number;
  refusals: number;
  warnings: number;
  /** Phase-gate text tokens / all request tokens (system, messages, ephemeral). */
  gateTokenShare: number;
}

/** Runs every weak-model policy with no phase gates, warn mode and block mode. */
export async function measurePhaseEffectiveness(): Promise<EffectivenessRow[]> {
  const rows: EffectivenessRow[] = [];
  for (const policy of POLICY_NAMES) {
    for (const mode of MODES) rows.push(await runOne(policy, mode));
  }
  return rows;
}

async function runOne(policyName: PolicyName, mode: PhaseMode): Promise<EffectivenessRow> {
  const policy = makePolicy(policyName);
  let requestTokens = 0;
  let gateTokens = 0;
  const model = scriptedModel(
    [
      (call: ScriptedCall) => {
        requestTokens += encode(promptText(call)).length;
        gateTokens += phaseTextOf(call).reduce((n, t) => n + encode(t).length, 0);
        return policy(call);
      },
    ],
    { whenExhausted: 'repeat-last' },
  );
  const events: AgateEvent[] = [];
  const files = new Map(Object.entries(START_FILES));
  const session = createSession(<WeakAgent mode={mode} files={files} />, {
    model,
    maxTicks: MAX_TICKS,
    store: createMemoryStore(),
    onEvent: (e) => events.push(e),
  });
  const result = await session.run();
  session.dispose();
  // Readiness without phase gates is judged the same way, from the run's calls.
  const ready = readinessAtEnd(result, files);
  let lastStatus: PhaseStatus | undefined;
  let falseBlocks = 0;
  let refusals = 0;
  for (const e of events) {
    if (e.type === 'phase:changed') lastStatus = e.status;
    if (e.type === 'exit:blocked') {
      refusals++;
      if (lastStatus?.readiness === true) falseBlocks++;
    }
  }
  return {
    policy: policyName,
    mode,
    status: result.status,
    ticks: result.ticks,
    premature: result.status === 'completed' && !ready,
    endedWithinBounds:
      (result.status === 'completed' || result.status === 'blocked') && result.ticks <= MAX_TICKS,
    falseBlocks,
    refusals,
    warnings: events.filter((e) => e.type === 'phase:warning').length,
    gateTokenShare: requestTokens === 0 ? 0 : gateTokens / requestTokens,
  };
}

/** Ready = the fix is in and a test run after it passed (judged from the timeline, for every mode). */
function readinessAtEnd(result: RunResult, files: Map<string, string>): boolean {
  if (result.phase !== undefined) return result.phase.readiness;
  const fixed = files.get('src/math.js')?.includes('a + b') === true;
  const calls = result.timeline.flatMap((m) =>
    m.role === 'assistant' && Array.isArray(m.content)
      ? m.content.filter((p) => p.type === 'tool-call').map((p) => p.toolName)
      : [],
  );
  const lastWrite = calls.lastIndexOf('write_file');
  return (
    fixed &&
    lastWrite !== -1 &&
    calls.lastIndexOf('run_tests') > lastWrite &&
    calls.includes('read_file')
  );
}

function promptText(call: ScriptedCall): string {
  return call.options.prompt
    .map((m) =>
      typeof m.content === 'string'
        ? m.content
        : m.content.map((p) => ('text' in p ? p.text : JSON.stringify(p))).join('\n'),
    )
    .join('\n');
}

/** The Markdown table for docs/performance.md. */
export function renderEffectivenessTable(rows: readonly EffectivenessRow[]): string {
  const label: Record<PhaseMode, string> = { none: 'no phase gates', warn: 'warn', block: 'block' };
  const lines = [
    `Weak-model policies, scripted (deterministic), \`maxTicks\` ${MAX_TICKS}, default options (\`maxBlocks\` 5).`,
    '',
    '| policy | phase gates | ended | ticks | premature finish | ended within bounds | refusals | false blocks | warnings | phase-gate share of request tokens |',
    '| --- | --- | --- | ---: | :---: | :---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.policy} | ${label[r.mode]} | ${r.status} | ${r.ticks} | ${r.premature ? 'yes' : 'no'} | ${r.endedWithinBounds ? 'yes' : 'no'} | ${r.refusals} | ${r.falseBlocks} | ${r.warnings} | ${(r.gateTokenShare * 100).toFixed(1)}% |`,
    ),
  ];
  const byMode = MODES.map((m) => {
    const of = rows.filter((r) => r.mode === m);
    return `${label[m]}: ${of.filter((r) => r.premature).length}/${of.length} premature finishes, ${of.filter((r) => r.endedWithinBounds).length}/${of.length} ended within bounds, ${of.reduce((n, r) => n + r.falseBlocks, 0)} false blocks`;
  });
  return [...lines, '', ...byMode.map((l) => `- ${l}`)].join('\n');
}
