import { type ReplayStep, replayPhaseGates } from '@agate/core/guards';
import { describe, expect, it } from 'vitest';
import {
  halfOf,
  judgeLevels,
  type LabelledRun,
  LEVELS,
  levelRow,
  RULES,
  renderLevelOutcomes,
  tableOf,
} from './level-outcomes.js';
import { fisherExact } from './odds.js';

const sh = (command: string, output = '', exitCode = 0): ReplayStep => ({
  tool: 'bash',
  input: { command },
  result: { exitCode, output },
});
const tools = { tools: { bash: 'shell' as const } };
const fix = [sh('cat src/a.py'), sh("sed -i 's/x/y/' src/a.py")];
const REPRO = "cat > repro.py <<'EOF'\nimport src.a\nEOF";
const TESTS = sh('pytest tests/', '=== 4 passed in 0.2s ===');

// Synthetic runs, one per level met.
const RUNS: Record<string, ReplayStep[]> = {
  none: [...fix],
  ran: [...fix, sh('pytest tests/', '=== 1 failed, 3 passed in 0.2s ===', 1)],
  passed: [...fix, sh(REPRO), sh('python repro.py', 'ok')],
  // The project's tests ran once, before the change; a script checked the change.
  'project-tests-once': [fix[0]!, TESTS, fix[1]!, sh(REPRO), sh('python repro.py', 'ok')],
  'project-tests': [...fix, TESTS],
};

describe('judgeLevels', () => {
  it('judges a run at every level from one replay, as a replay at each level does', () => {
    for (const [met, steps] of Object.entries(RUNS)) {
      const verdicts = judgeLevels(steps, tools);
      expect(verdicts.met).toBe(met);
      for (const level of LEVELS) {
        expect(verdicts.refused[level]).toBe(
          replayPhaseGates(steps, { ...tools, verification: level }).exit.refused,
        );
      }
    }
    expect(judgeLevels(RUNS.passed!, tools)).toEqual({
      met: 'passed',
      refused: { ran: false, passed: false, 'project-tests-once': true, 'project-tests': true },
      lastCheck: { outcome: 'passed', kind: 'agent-script' },
      projectTestsRan: false,
    });
    expect(judgeLevels(RUNS['project-tests-once']!, tools).projectTestsRan).toBe(true);
    expect(judgeLevels(RUNS.none!, tools).lastCheck).toBeUndefined();
  });

  it("records a last check that could not run as an 'error' attempt", () => {
    const steps = [
      ...fix,
      TESTS,
      sh('pytest tests/', '/usr/bin/python: No module named pytest', 1),
    ];
    const verdicts = judgeLevels(steps, tools);
    expect(verdicts.lastAttemptError).toBe('pytest tests/');
    // The check that ran before it still stands.
    expect(verdicts.met).toBe('project-tests');
  });
});

describe('halfOf', () => {
  it("splits by the first byte of the id's SHA-256", () => {
    // sha256('x-3')[0] = 96, sha256('x-1')[0] = 224 (Python's hashlib).
    expect(halfOf('x-3')).toBe('A');
    expect(halfOf('x-1')).toBe('B');
  });
});

describe('renderLevelOutcomes', () => {
  let n = 0;
  const run = (scaffold: string, resolved: boolean, met: keyof typeof RUNS): LabelledRun => ({
    id: `x-${n++}`,
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
  const rule = (name: string) => RULES.find((r) => r.name === name)!;

  it('counts the 2×2 tables and the refusal cost per level', () => {
    const refusedAtProjectTests = tableOf(runs, (r) => r.levels.refused['project-tests']);
    expect(refusedAtProjectTests).toEqual({ a: 3, b: 6, c: 9, d: 2 });
    expect(tableOf(runs, (r) => r.levels.refused.ran)).toEqual({ a: 0, b: 0, c: 12, d: 8 });
    const row = levelRow(runs, rule('project-tests'));
    // 3 of the 12 resolved runs refused; interval 0.0141–0.877 (below 1), cost 25%.
    expect(row.refusalCost).toBe(0.25);
    expect(row.meetsTarget).toBe(true);
    // Refusing nothing compares nothing and meets no target.
    expect(levelRow(runs, rule('ran'))).toMatchObject({ refusalCost: 0, meetsTarget: false });
    expect(levelRow(runs, rule('ran')).odds).toBeUndefined();
  });

  it('prints each level with refusals, resolved rates, refusal cost, odds ratio and Fisher’s p', () => {
    const table = renderLevelOutcomes(runs);
    expect(table).toContain(
      '20 finishes with an outcome label (12 resolved), from 2 scaffolds (A; B)',
    );
    // project-tests refuses 9 (3 resolved) and lets 11 through (9 resolved). Expected values
    // from SciPy (odds_ratio([[3, 6], [9, 2]], kind='sample'): 0.111, 0.0141–0.877) and the
    // RGB formula over the strata A (1, 3, 5, 1) and B (2, 3, 4, 1): 0.111, 0.0139–0.890.
    const p = fisherExact({ a: 3, b: 6, c: 9, d: 2 });
    expect(table).toContain(
      `| all (20) | project-tests | 9 | 33.3% | 81.8% | 25.0% (3/12) | 0.11 (0.01–0.88) | ${p.toPrecision(2)} | ✓ |`,
    );
    expect(table).toContain('project-tests 0.11 (0.01–0.89)');
    // Nothing refused at 'ran': nothing to compare.
    expect(table).toContain('| all (20) | ran | 0 | – | 60.0% | 0.0% (0/12) | – | – | ✗ |');
    // A row per half and per scaffold.
    for (const group of ['half A', 'half B', 'A (10)', 'B (10)'])
      expect(table).toContain(`| ${group}`);
    expect(table).toContain('| all (20) | project-tests-if-runnable (rejected) |');
    expect(table).toContain('| passed | 4 | 25.0% | 0 | 4 | 0 | 0 | 4 |');
    expect(table).toContain('| ran | 5 | 40.0% | 5 | 0 | 0 | 0 | 0 |');
    // A zero cell in a compared row is corrected, and said so.
    const zero = renderLevelOutcomes(
      [...runs, run('A', true, 'none')].filter((r) => r.resolved || r.levels.met !== 'passed'),
    );
    expect(zero).toMatch(/\(\d[.\d]*–[\d.]+\) ¹ \|/);
  });

  it('the rejected rule refuses what passed refuses, and project-tests refusals of runs that ran them', () => {
    const rejected = rule('project-tests-if-runnable (rejected)');
    const levels = (met: keyof typeof RUNS) => judgeLevels(RUNS[met]!, tools);
    expect(rejected.refused(levels('ran'))).toBe(true);
    expect(rejected.refused(levels('passed'))).toBe(false);
    expect(rejected.refused(levels('project-tests-once'))).toBe(true);
    expect(rejected.refused(levels('project-tests'))).toBe(false);
  });
});
