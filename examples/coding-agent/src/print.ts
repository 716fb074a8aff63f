import type { EventListener, RunResult } from '@agate/core';
import {
  createPrinter as createKitPrinter,
  formatResult as formatKitResult,
  preview,
} from '@agate/example-kit';

const PREVIEW = 200;

/** Prints a run as it happens: ticks, model text, tool calls and results, gates, refusals. */
export function createPrinter(write: (text: string) => void): EventListener {
  return createKitPrinter(write, {
    previewLength: PREVIEW,
    gates: true,
    refusal: (reasons) => preview(reasons.join(' | '), PREVIEW),
  });
}

/** Status, ticks and every gate's final state. */
export function formatResult(result: RunResult): string {
  return formatKitResult(result, { gates: true });
}
