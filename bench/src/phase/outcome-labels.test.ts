import { describe, expect, it } from 'vitest';
import {
  type LabelledCheck,
  loadLabels,
  readLabelled,
  renderLabelReport,
  score,
} from './outcome-labels.js';
import { checksOf, DEV, DRAWS, drawFresh, FRESH, FRESH2, HELD_OUT } from './outcome-sample.js';
import { loadTrajectories } from './replay-bench.js';
import { TRAJECTORIES } from './replay-doc.js';

const labels = loadLabels(new URL('../../fixtures/outcome-labels/labels.jsonl', import.meta.url));

describe('the hand-labelled checks', () => {
  it('are the seeded draws: 100 dev, 50 held out, 150 fresh and 150 fresh-2, each with a rule', () => {
    expect(labels.filter((c) => c.split === 'dev')).toHaveLength(DEV);
    expect(labels.filter((c) => c.split === 'held-out')).toHaveLength(HELD_OUT);
    expect(labels.filter((c) => c.split === 'fresh')).toHaveLength(FRESH);
    expect(labels.filter((c) => c.split === 'fresh-2')).toHaveLength(FRESH2);
    // No check is labelled twice: each later draw excludes every earlier one.
    expect(new Set(labels.map((c) => `${c.id}#${c.step}`)).size).toBe(labels.length);
    for (const c of labels) {
      expect(['passed', 'failed', 'error', 'unknown']).toContain(c.label);
      expect(['exit-code', 'words', 'not-run', 'nothing', 'summary', 'exception']).toContain(
        c.basis,
      );
    }
  });

  // Every split has had rules written from its misses (the fresh one last, issue 47): each is
  // held to the targets and to no passed check read as failed, so no later rule regresses them.
  // fresh-2 was measured first (labels committed before the reader ran on it) and is held too,
  // so that no later rule is bought with a regression on the one untouched set.
  for (const split of ['dev', 'held-out', 'fresh', 'fresh-2'] as const)
    it(`the reader meets the targets on the ${split} checks: failed/error precision ≥ 95%, recall ≥ 90%`, () => {
      const s = score(
        labels.filter((c) => c.split === split),
        ['failed', 'error'],
      );
      expect(s.precision).toBeGreaterThanOrEqual(0.95);
      expect(s.recall).toBeGreaterThanOrEqual(0.9);
    });

  it('never reads a check labelled passed as failed or error', () => {
    const wrong = labels.filter(
      (c) => c.label === 'passed' && ['failed', 'error'].includes(readLabelled(c)),
    );
    expect(wrong.map((c) => c.n)).toEqual([]);
  });

  it('score counts a failed check read as error as a miss', () => {
    const check = (label: LabelledCheck['label'], exitCode: number, output: string) =>
      ({ label, result: { exitCode, output }, exitCodeHidden: false }) as LabelledCheck;
    const s = score(
      [
        check('failed', 127, 'bash: x: command not found'),
        check('failed', 1, 'boom'),
        check('passed', 0, 'ok'),
      ],
      ['failed', 'error'],
    );
    expect(s).toMatchObject({ positives: 2, predicted: 2, hits: 1 });
    const report = renderLabelReport(labels);
    for (const split of ['dev', 'held-out', 'fresh', 'fresh-2', 'all'])
      expect(report).toContain(`| ${split} | failed or error |`);
  });
});

describe('the fresh draw', () => {
  it('excludes the checks already labelled and is the same on every run', () => {
    const checks = Array.from({ length: 20 }, (_, step) => ({
      id: 'run',
      step,
      command: 'pytest',
      exitCodeHidden: false,
    }));
    const labelled = [
      { id: 'run', step: 3 },
      { id: 'run', step: 7 },
    ];
    const first = drawFresh(checks, labelled, 18, 4747);
    expect(first.map((c) => c.step).sort((a, b) => a - b)).toEqual(
      checks.map((c) => c.step).filter((s) => s !== 3 && s !== 7),
    );
    expect(drawFresh(checks, labelled, 18, 4747)).toEqual(first);
  });

  it('each later split holds exactly its seeded draw over the checks minus the splits before it', () => {
    const checks = checksOf(loadTrajectories(TRAJECTORIES));
    for (const [name, { seed, n, after, labelledBefore }] of Object.entries(DRAWS)) {
      const before: readonly string[] = after;
      const drawn = drawFresh(
        checks,
        labels.filter((c) => before.includes(c.split)),
        n,
        seed,
      );
      // In draw order, numbered on from the labels before it.
      expect(labels.filter((c) => c.split === name).map((c) => `${c.n} ${c.id}#${c.step}`)).toEqual(
        drawn.map((c, i) => `${labelledBefore + i} ${c.id}#${c.step}`),
      );
    }
  });
});
