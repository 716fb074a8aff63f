import { describe, expect, it } from 'vitest';
import {
  type LabelledCheck,
  loadLabels,
  readLabelled,
  renderLabelReport,
  score,
} from './outcome-labels.js';
import { DEV, HELD_OUT } from './outcome-sample.js';

const labels = loadLabels(new URL('../../fixtures/outcome-labels/labels.jsonl', import.meta.url));

describe('the hand-labelled checks', () => {
  it('are the seeded draw: 100 dev and 50 held out, each with a rule', () => {
    expect(labels.filter((c) => c.split === 'dev')).toHaveLength(DEV);
    expect(labels.filter((c) => c.split === 'held-out')).toHaveLength(HELD_OUT);
    for (const c of labels) {
      expect(['passed', 'failed', 'error', 'unknown']).toContain(c.label);
      expect(['exit-code', 'words', 'not-run', 'nothing', 'summary', 'exception']).toContain(
        c.basis,
      );
    }
  });

  it('the reader meets the targets on the dev checks: failed/error precision ≥ 95%, recall ≥ 90%', () => {
    const s = score(
      labels.filter((c) => c.split === 'dev'),
      ['failed', 'error'],
    );
    expect(s.precision).toBeGreaterThanOrEqual(0.95);
    expect(s.recall).toBeGreaterThanOrEqual(0.9);
  });

  it('never reads a check labelled passed as failed or error (all 150)', () => {
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
    expect(renderLabelReport(labels)).toContain('| held-out | failed or error |');
  });
});
