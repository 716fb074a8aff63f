import { type ScriptedCall, type ScriptedModel, scriptedModel } from '@agate/testing';

/** The AI SDK (LanguageModelV4) prompt a model call receives. */
type ModelPrompt = ScriptedCall['options']['prompt'];

/** A tool call the agent made earlier in the run, with what it returned. */
export interface SeenToolCall {
  toolName: string;
  input: unknown;
  output: string;
  isError: boolean;
}

export interface NextStep {
  text?: string;
  toolCalls?: Array<{ toolName: string; input: Record<string, unknown> }>;
}

/**
 * The offline "model": a fixed policy that does the task for real from what its tools have
 * returned so far — list the workspace, read every note, write SUMMARY.md from the notes'
 * actual contents, then confirm. Pure, so the scripted model and the loopback-server test
 * share it.
 */
export function decideNextStep(history: readonly SeenToolCall[]): NextStep {
  const listing = history.findLast((c) => c.toolName === 'list_files' && !c.isError);
  if (listing === undefined) {
    return {
      text: 'Let me see what is in the workspace.',
      toolCalls: [{ toolName: 'list_files', input: { path: '.' } }],
    };
  }

  const notes = listing.output
    .split('\n')
    .map((line) => line.replace(/ \(\d+ bytes\)$/, ''))
    .filter((path) => path.startsWith('notes/') && path.endsWith('.md'));
  if (notes.length === 0) return { text: 'There are no notes to summarize.' };

  const reads = new Map<string, SeenToolCall>();
  for (const call of history) {
    const path = pathOf(call.input);
    if (call.toolName === 'read_file' && path !== undefined) reads.set(path, call);
  }
  const unread = notes.filter((path) => !reads.has(path));
  if (unread.length > 0) {
    return {
      text: `I will read ${unread.length} note${unread.length === 1 ? '' : 's'}.`,
      toolCalls: unread.map((path) => ({ toolName: 'read_file', input: { path } })),
    };
  }

  const written = history.findLast((c) => c.toolName === 'write_file' && !c.isError);
  if (written === undefined) {
    const sections = notes.map((path) => summarizeNote(path, reads.get(path)!));
    return {
      toolCalls: [
        {
          toolName: 'write_file',
          input: {
            path: 'SUMMARY.md',
            content: `# Summary of notes\n\n${sections.join('\n\n')}\n`,
          },
        },
      ],
    };
  }
  return { text: `Done: SUMMARY.md summarizes ${notes.length} notes. (${written.output})` };
}

function summarizeNote(path: string, read: SeenToolCall): string {
  if (read.isError) return `## ${path}\n\n(could not be read: ${read.output})`;
  const lines = read.output.split('\n');
  const title =
    lines
      .find((l) => l.startsWith('# '))
      ?.slice(2)
      .trim() ?? path;
  const points = lines
    .filter((l) => /^\s*[-*] /.test(l))
    .map((l) => `- ${l.replace(/^\s*[-*] /, '')}`);
  const body =
    points.length > 0 ? points.join('\n') : `- ${lines.find((l) => l.trim() !== '') ?? '(empty)'}`;
  return `## ${title} (${path})\n\n${body}`;
}

function pathOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const path = (input as { path?: unknown }).path;
  return typeof path === 'string' ? path : undefined;
}

/** Tool calls and their results as they appear in an AI SDK (LanguageModelV4) prompt. */
export function seenToolCalls(prompt: ModelPrompt): SeenToolCall[] {
  const inputs = new Map<string, { toolName: string; input: unknown }>();
  const seen: SeenToolCall[] = [];
  for (const message of prompt) {
    if (message.role === 'assistant') {
      for (const part of message.content) {
        if (part.type === 'tool-call') {
          inputs.set(part.toolCallId, { toolName: part.toolName, input: parseInput(part.input) });
        }
      }
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const call = inputs.get(part.toolCallId);
        const { output } = part;
        const isError = output.type === 'error-text' || output.type === 'error-json';
        const text =
          output.type === 'text' || output.type === 'error-text'
            ? output.value
            : output.type === 'json' || output.type === 'error-json'
              ? JSON.stringify(output.value)
              : output.type;
        seen.push({ toolName: part.toolName, input: call?.input, output: text, isError });
      }
    }
  }
  return seen;
}

function parseInput(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

/** True once the prompt holds an assistant turn without tool calls: an attempt to finish. */
export function triedToFinish(prompt: ModelPrompt): boolean {
  return prompt.some(
    (message) =>
      message.role === 'assistant' && !message.content.some((part) => part.type === 'tool-call'),
  );
}

/**
 * The offline model: `scriptedModel` from @agate/testing running `decideNextStep` on every
 * call — except that, like a hasty model, it first tries to finish as soon as it has read the
 * notes, before writing SUMMARY.md. The agent's summary gate refuses that, says why, and the
 * model then does the missing work. (`decideNextStep` alone is the diligent policy.)
 */
export function offlineModel(): ScriptedModel {
  return scriptedModel(
    [
      (call) => {
        const { prompt } = call.options;
        const step = decideNextStep(seenToolCalls(prompt));
        const writesSummary = step.toolCalls?.some((c) => c.toolName === 'write_file') === true;
        if (writesSummary && !triedToFinish(prompt)) {
          return { text: 'I have read both notes, so the task is done.' };
        }
        return step;
      },
    ],
    { whenExhausted: 'repeat-last', modelId: 'offline-file-agent' },
  );
}
