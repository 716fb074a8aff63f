import type { AgateEvent, EventListener, RunResult } from '@agate/core';

export interface PrinterOptions {
  /** Longest tool input/output shown, in characters, before it is cut with `…`. Default 160. */
  previewLength?: number;
  /** Print gate transitions (activated, deferred, cleared). Default false. */
  gates?: boolean;
  /** How an exit refusal's reasons are shown. Default: joined with `; `, uncut. */
  refusal?: (reasons: readonly string[]) => string;
}

/**
 * Prints a run as it happens: each tick, the model's streamed text, every tool call with its
 * arguments and result, exit refusals, warnings, and the end.
 */
export function createPrinter(
  write: (text: string) => void,
  options: PrinterOptions = {},
): EventListener {
  const length = options.previewLength ?? 160;
  const refusal = options.refusal ?? ((reasons) => reasons.join('; '));
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
        write(`  → ${event.toolName} ${preview(JSON.stringify(event.input), length)}\n`);
        break;
      case 'tool:result': {
        const text = typeof event.output === 'string' ? event.output : JSON.stringify(event.output);
        write(`  ${event.isError ? '✗' : '←'} ${event.toolName}: ${preview(text, length)}\n`);
        break;
      }
      case 'gate:activated':
      case 'gate:deferred':
      case 'gate:cleared':
        if (!options.gates) break;
        endStream();
        write(`  gate ${event.gate}: ${event.from} → ${gateTarget(event.type)} (by ${event.by})\n`);
        break;
      case 'exit:blocked':
        write(`  exit refused: ${refusal(event.reasons)}\n`);
        break;
      case 'warning':
        write(`  warning (${event.code}): ${event.message}\n`);
        break;
      case 'context:pruned':
        // Only where the cut moved; the ticks in between keep it (and the prompt cache).
        if (!event.recut) break;
        endStream();
        write(
          `  context pruned to the budget: ${event.tokensBefore} → ${event.tokensAfter} tokens (${event.droppedMessages} messages left out)\n`,
        );
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

export interface ResultOptions {
  /** Add a line with the token usage. */
  usage?: boolean;
  /** Add a line with every gate's final state. */
  gates?: boolean;
}

/** The end of a run in a few lines: status (and why), ticks, then what `options` asks for. */
export function formatResult(result: RunResult, options: ResultOptions = {}): string {
  const { usage } = result;
  return [
    `status: ${result.status}${result.reason ? ` — ${result.reason}` : ''}`,
    `ticks: ${result.ticks}`,
    ...(options.usage
      ? [
          `usage: ${usage.inputTokens} input + ${usage.outputTokens} output = ${usage.totalTokens} tokens`,
        ]
      : []),
    ...(options.gates
      ? [
          `gates: ${Object.entries(result.gates)
            .map(([name, state]) => `${name}=${state}`)
            .join(', ')}`,
        ]
      : []),
  ].join('\n');
}

/** One line of at most `length` characters: newlines shown as `⏎`, the rest cut with `…`. */
export function preview(text: string, length: number): string {
  const flat = text.replaceAll('\n', '⏎');
  return flat.length > length ? `${flat.slice(0, length)}…` : flat;
}
