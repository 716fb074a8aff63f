import { basename, join } from 'node:path';
import {
  type ScriptedCall,
  type ScriptedModel,
  type ScriptedReply,
  scriptedModel,
} from '@agate/testing';

/** Where each seeded file belongs. */
export const PLAN: Readonly<Record<string, string>> = {
  'holiday.png': 'images',
  'cat.jpg': 'images',
  'invoice.pdf': 'docs',
  'notes.txt': 'docs',
};

type Part = {
  type: string;
  toolName?: string;
  toolCallId?: string;
  input?: unknown;
  output?: { type: string; value?: unknown };
};
type Message = { role: string; content: string | Part[] };

/** What the conversation so far shows: which tools were called, and what they answered. */
function read(call: ScriptedCall) {
  const prompt = call.options.prompt as unknown as Message[];
  const parts = prompt.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
  const calls = parts.filter((p) => p.type === 'tool-call');
  const results = parts.filter((p) => p.type === 'tool-result');
  return {
    /** Tool calls so far: a new call's id counts on from them, unique in the session. */
    callCount: calls.length,
    called: (name: string) => calls.some((p) => p.toolName === name),
    /** The text of every result of `name`, in order. */
    outputs: (name: string) => results.filter((p) => p.toolName === name).map(resultText),
    /** The call that `result` answers. */
    callOf: (result: Part) => calls.find((c) => c.toolCallId === result.toolCallId),
    results,
  };
}

/** A result's text, whatever form the output took (MCP content, plain text, JSON). */
function resultText(part: Part): string {
  const output = part.output;
  if (output === undefined) return '';
  if (output.type === 'content' && Array.isArray(output.value)) {
    return output.value
      .map((item: { type?: string; text?: string }) => (item.type === 'text' ? item.text : ''))
      .join('\n');
  }
  return typeof output.value === 'string' ? output.value : JSON.stringify(output.value);
}

/**
 * A scripted model that tidies `root`: it lists it, makes the two folders, moves the loose
 * files it listed in one response (the calls a person approves), and reports what moved and
 * what a person refused. Each turn follows from the conversation it is sent, not from a count
 * of its own calls, so a run resumed in another process (after `agate approve`) goes on where
 * the session is.
 */
export function offlineModel(root: string): ScriptedModel {
  const next = (call: ScriptedCall): ScriptedReply => {
    const seen = read(call);
    let id = seen.callCount;
    const tool = (toolName: string, input: unknown) => ({
      toolCallId: `call-${++id}`,
      toolName,
      input,
    });
    const listing = seen.outputs('list_directory').at(-1);
    if (listing === undefined) {
      return {
        text: 'Looking at the folder.',
        toolCalls: [tool('list_directory', { path: root })],
      };
    }
    if (!seen.called('create_directory')) {
      return {
        text: 'Making the folders.',
        toolCalls: [
          tool('create_directory', { path: join(root, 'images') }),
          tool('create_directory', { path: join(root, 'docs') }),
        ],
      };
    }
    if (!seen.called('move_file')) {
      const loose = [...listing.matchAll(/^\[FILE\] (.+)$/gm)]
        .map((m) => m[1]!)
        .filter((file) => PLAN[file] !== undefined);
      if (loose.length === 0) return { text: 'Nothing is loose: the folder is tidy already.' };
      return {
        text: 'Moving the files.',
        toolCalls: loose.map((file) =>
          tool('move_file', {
            source: join(root, file),
            destination: join(root, PLAN[file]!, file),
          }),
        ),
      };
    }
    return { text: report(seen) };
  };
  return scriptedModel([next], { modelId: 'offline-mcp-agent', whenExhausted: 'repeat-last' });
}

/** The final answer: each move's outcome, from its result. */
function report(seen: ReturnType<typeof read>): string {
  const moved: string[] = [];
  const refused: string[] = [];
  const failed: string[] = [];
  for (const result of seen.results.filter((r) => r.toolName === 'move_file')) {
    const input = seen.callOf(result)?.input as { source?: string; destination?: string };
    const file = basename(input?.source ?? '?');
    const text = resultText(result);
    if (/was denied by/.test(text)) refused.push(`${file} (${text.replace(/^.*Reason: /s, '')})`);
    else if (/^Successfully moved/.test(text)) {
      moved.push(`${file} → ${basename(join(input?.destination ?? '', '..'))}/`);
    } else failed.push(`${file} (${text.split('\n')[0]})`);
  }
  return [
    moved.length > 0 ? `Moved ${moved.join(', ')}.` : 'Moved nothing.',
    refused.length > 0 ? `Left where it was, as a person refused: ${refused.join(', ')}.` : '',
    failed.length > 0 ? `Could not move: ${failed.join(', ')}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
}
