import type { EventListener, RunResult } from '@agate/core';
import {
  createPrinter as createKitPrinter,
  formatResult as formatKitResult,
} from '@agate/example-kit';

/** The kit's printer, plus sign-offs, list changes and refused calls. */
export function createPrinter(write: (text: string) => void): EventListener {
  const kit = createKitPrinter(write, { previewLength: 240 });
  return (event) => {
    kit(event);
    if (event.type === 'tool:refused') write(`  refused by ${event.by}\n`);
    if (event.type === 'step:completed') {
      write(
        `  step ${event.step} signed off (${event.evidence.verified ? 'verified' : 'manual, unverified'})\n`,
      );
    }
    if (event.type === 'todos:changed') {
      write(`  todos: ${event.todos.map((t) => `[${t.status}] ${t.content}`).join(', ')}\n`);
    }
  };
}

/** Status, ticks, and the final list with each item's evidence. */
export function formatResult(result: RunResult): string {
  const list = (result.todos ?? []).map((t, i) => {
    const e = t.evidence;
    const how = e === undefined ? 'no evidence' : e.verified ? 'verified' : 'manual, unverified';
    return `  ${i + 1}. [${t.status}] ${t.content} (${how}${e?.command ? `: ${e.command}` : ''}${e?.files ? `: ${e.files.join(', ')}` : ''})`;
  });
  return [formatKitResult(result), 'todos:', ...list].join('\n');
}
