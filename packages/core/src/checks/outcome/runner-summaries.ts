import { goTestSummary } from './summaries/go.js';
import {
  jestSummary,
  mochaSummary,
  nodeTestSummary,
  packageScriptSummary,
  vitestSummary,
} from './summaries/javascript.js';
import { gradleSummary, junitConsoleSummary, mavenSummary } from './summaries/jvm.js';
import { pytestSummary, unittestSummary } from './summaries/python.js';
import { cargoTestSummary } from './summaries/rust.js';
import type { SummaryReader, SummaryVerdict } from './summary-reader.js';

/** Every runner whose summary lines are read, in the order their verdicts are preferred. */
export const RUNNER_SUMMARIES: readonly SummaryReader[] = [
  pytestSummary,
  unittestSummary,
  jestSummary,
  vitestSummary,
  mochaSummary,
  nodeTestSummary,
  goTestSummary,
  cargoTestSummary,
  mavenSummary,
  gradleSummary,
  junitConsoleSummary,
  packageScriptSummary,
];

/**
 * What the runners' summary lines in an output say: failed when any runner reports a failure
 * (a wrapper's "Test failed" included), passed when runners report passes and none a failure.
 */
export function readRunnerSummaries(
  text: string,
): (SummaryVerdict & { runner: string }) | undefined {
  let pass: (SummaryVerdict & { runner: string }) | undefined;
  for (const reader of RUNNER_SUMMARIES) {
    const verdict = reader.read(text);
    if (verdict === undefined) continue;
    if (verdict.outcome === 'failed') return { ...verdict, runner: reader.runner };
    pass ??= { ...verdict, runner: reader.runner };
  }
  return pass;
}
