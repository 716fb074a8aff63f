import type { SessionState } from '@agate/core';

/** The tool `<Output>` adds for the run's answer (the core's `FINAL_ANSWER_TOOL`). */
const FINAL_ANSWER = 'final_answer';

/**
 * The `<Output>` answer of a stored session: the input of the last `final_answer` call whose
 * result is not an error, in a session that completed (a run ends at the tick whose answer was
 * accepted; a refused or invalid one reads as an error result). The state is not where the
 * core keeps the answer (`RunResult.output`), so it is read back from the timeline, defensively:
 * a file's timeline may hold anything.
 */
export function storedOutput(
  state: Pick<SessionState, 'status' | 'timeline'>,
): { value: unknown } | undefined {
  if (state.status !== 'completed') return undefined;
  const failed = new Set<string>();
  for (let m = state.timeline.length - 1; m >= 0; m--) {
    const parts = partsOf(state.timeline[m]);
    for (let p = parts.length - 1; p >= 0; p--) {
      const part = parts[p];
      if (!isRecord(part) || part.toolName !== FINAL_ANSWER || typeof part.toolCallId !== 'string')
        continue;
      if (part.type === 'tool-result') {
        const output = isRecord(part.output) ? part.output : {};
        if (output.type === 'error-text' || output.type === 'error-json')
          failed.add(part.toolCallId);
      } else if (part.type === 'tool-call' && !failed.has(part.toolCallId)) {
        return { value: part.input };
      }
    }
  }
  return undefined;
}

function partsOf(message: unknown): unknown[] {
  return isRecord(message) && Array.isArray(message.content) ? message.content : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
