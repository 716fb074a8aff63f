import type { AgateEvent, EventListener, RunResult } from '@agate/core';

const PREVIEW = 160;

/**
 * Prints a run as it happens: each tick, the model's streamed text, every tool call with its
 * arguments and result, exit refusals, warnings, and the end.
 */
export function createPrinter(write: (text: string) => void): EventListener {
  let streaming = false;
  const endStream = () => {
    if (streaming) write('\n');
    streaming = false;
  };
  return (event: AgateEvent) => {
    switch (event.type) {
      case 'tick:start':
        endStream();
        write(`\n── tick ${event.tick} ──\n`);
        break;
      case 'model:delta':
        if (event.kind !== 'text') break;
        if (!streaming) write('  model: ');
        streaming = true;
        write(event.delta.replaceAll('\n', '\n         '));
        break;
      case 'model:response':
        endStream();
        break;
      case 'tool:call':
        endStream();
        write(`  → ${event.toolName} ${preview(JSON.stringify(event.input))}\n`);
        break;
      case 'tool:result': {
        const text = typeof event.output === 'string' ? event.output : JSON.stringify(event.output);
        write(`  ${event.isError ? '✗' : '←'} ${event.toolName}: ${preview(text)}\n`);
        break;
      }
      case 'exit:blocked':
        write(`  exit refused: ${event.reasons.join('; ')}\n`);
        break;
      case 'warning':
        write(`  warning (${event.code}): ${event.message}\n`);
        break;
      case 'run:end':
        endStream();
        break;
      default:
        break;
    }
  };
}

export function formatResult(result: RunResult): string {
  const { usage } = result;
  return [
    `status: ${result.status}${result.reason ? ` — ${result.reason}` : ''}`,
    `ticks: ${result.ticks}`,
    `usage: ${usage.inputTokens} input + ${usage.outputTokens} output = ${usage.totalTokens} tokens`,
  ].join('\n');
}

function preview(text: string): string {
  const flat = text.replaceAll('\n', '⏎');
  return flat.length > PREVIEW ? `${flat.slice(0, PREVIEW)}…` : flat;
}
