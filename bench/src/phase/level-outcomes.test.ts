import { type ReplayStep, replayPhaseGates } from '@agate/core/guards';
import { describe, expect, it } from 'vitest';
import { judgeLevels, type LabelledRun, renderLevelOutcomes, tableOf } from './level-outcomes.js';
import { fisherExact } from './odds.js';

const sh = (command: string, output = '', exitCode = 0): ReplayStep => ({
  tool: 'bash',
  input: { command },
  result: { exitCode, output },
});
const tools = { tools: { bash: 'shell' as const } };
const fix = [sh('cat src/a.py'), sh("sed -i 's/x/y/' src/a.py")];
const REPRO = "cat > repro.py <<'EOF'\nimport src.a\nEOF";

// Synthetic runs, one per level met.
const RUNS: Record<string, ReplayStep[]> = {
  none: [...fix],
  ran: [...fix, sh('pytest tests/', '=== 1 failed, 3 passed in 0.2s ===', 1)],
  passed: [...fix, sh(REPRO), sh('python repro.py', 'ok')],
  'project-tests': [...fix, sh('pytest tests/', '=== 4 passed in 0.2s ===')],
};

describe('judgeLevels', () => {
  it('judges a run at every level, as replayPhaseGates does at each', () => {
    for (const [met, steps] of Object.entries(RUNS)) {
      const verdicts = judgeLevels(steps, tools);
      expect(verdicts.met).toBe(met);
      for (const level of ['ran', 'passed', 'project-tests'] as const) {
        expect(verdicts.refused[level]).toBe(
          replayPhaseGates(steps, { ...tools, verification: level }).exit.refused,
        );
      }
    }
    expect(judgeLevels(RUNS.passed!, tools)).toEqual({
      met: 'passed',
      refused: { ran: false, passed: false, 'project-tests': true },
      lastCheck: { outcome: 'passed', kind: 'agent-script' },
    });
    expect(judgeLevels(RUNS.none!, tools).lastCheck).toBeUndefined();
  });
});

describe('renderLevelOutcomes', () => {
  const run = (scaffold: string, resolved: boolean, met: keyof typeof RUNS): LabelledRun => ({
    scaffold,
    resolved,
    levels: judgeLevels(RUNS[met]!, tools),
  });
  // Two scaffolds: refusal goes with failure in both.
  const runs: LabelledRun[] = [
    ...Array.from({ length: 6 }, (_, i) => run('A', i < 5, 'project-tests')),
    ...Array.from({ length: 4 }, (_, i) => run('A', i < 1, 'passed')),
    ...Array.from({ length: 5 }, (_, i) => run('B', i < 4, 'project-tests')),
    ...Array.from({ length: 5 }, (_, i) => run('B', i < 2, 'ran')),
  ];

  it('counts the 2×2 tables per level', () => {
    const refusedAtProjectTests = tableOf(runs, (r) => r.levels.refused['project-tests']);
    expect(refusedAtProjectTests).toEqual({ a: 3, b: 6, c: 9, d: 2 });
    expect(tableOf(runs, (r) => r.levels.refused.ran)).toEqual({ a: 0, b: 0, c: 12, d: 8 });
  });

  it('prints each level with the resolved rates, both odds ratios and Fisher’s p', () => {
    const table = renderLevelOutcomes(runs);
    expect(table).toContain('20 finishes with an outcome label, from 2 scaffolds (A; B)');
    // project-tests refuses 9 (3 resolved) and lets 11 through (9 resolved). Expected values
    // from SciPy (odds_ratio([[3, 6], [9, 2]], kind='sample'): 0.111, 0.0141–0.877) and the
    // RGB formula over the strata A (1, 3, 5, 1) and B (2, 3, 4, 1): 0.111, 0.0139–0.890.
    const row = table.split('\n').find((l) => l.startsWith('| project-tests |'))!;
    const p = fisherExact({ a: 3, b: 6, c: 9, d: 2 });
    expect(row).toBe(
      `| project-tests | 33.3% (9) | 81.8% (11) | 0.11 (0.01–0.89) | 0.11 (0.01–0.88) | ${p.toPrecision(2)} |`,
    );
    // Nothing refused at 'ran': nothing to compare.
    expect(table).toContain('| ran | – (0) | 60.0% (20) | – | – | – |');
    expect(table).toContain('| passed | 4 | 25.0% | 0 | 4 | 0 | 4 |');
    expect(table).toContain('| ran | 5 | 40.0% | 5 | 0 | 0 | 0 |');
    // A zero cell in a compared row is corrected, and said so.
    const zero = renderLevelOutcomes(
      [...runs, run('A', true, 'none')].filter((r) => r.resolved || r.levels.met !== 'passed'),
    );
    expect(zero).toContain('½ added to every cell');
  });
});
