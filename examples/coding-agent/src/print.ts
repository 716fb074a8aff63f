import type { AgateEvent, EventListener, RunResult } from '@agate/core';

const PREVIEW = 200;

/** Prints a run as it happens: ticks, model text, tool calls and results, gates, refusals. */
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
      case 'gate:activated':
      case 'gate:deferred':
      case 'gate:cleared':
        endStream();
        write(`  gate ${event.gate}: ${event.from} → ${gateTarget(event.type)} (by ${event.by})\n`);
        break;
      case 'exit:blocked':
        write(`  exit refused: ${preview(event.reasons.join(' | '))}\n`);
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

function gateTarget(type: 'gate:activated' | 'gate:deferred' | 'gate:cleared'): string {
  return type === 'gate:activated' ? 'active' : type === 'gate:deferred' ? 'deferred' : 'inactive';
}

export function formatResult(result: RunResult): string {
  return [
    `status: ${result.status}${result.reason ? ` — ${result.reason}` : ''}`,
    `ticks: ${result.ticks}`,
    `gates: ${Object.entries(result.gates)
      .map(([name, state]) => `${name}=${state}`)
      .join(', ')}`,
  ].join('\n');
}

function preview(text: string): string {
  const flat = text.replaceAll('\n', '⏎');
  return flat.length > PREVIEW ? `${flat.slice(0, PREVIEW)}…` : flat;
}
