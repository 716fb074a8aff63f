import {
  type AgateEvent,
  PhaseGates,
  PhasePrompt,
  type RunResult,
  run,
  System,
  Timeline,
  Tool,
  User,
} from '@agate/core';
import { type ScriptedCall, type ScriptedReply, scriptedModel } from '@agate/testing';
import { z } from 'zod';

/**
 * A weak local model's habit, scripted: it looks around twice and declares victory, unless the
 * last thing it was told (a phase-gate warning or refusal) names a next step, which it then
 * does. Small models often behave like this: they follow the most recent instruction.
 */
export function followsLastInstruction(): (call: ScriptedCall) => ScriptedReply {
  let instruction: string | undefined;
  let done = new Set<number>();
  let looked = 0;
  return (call) => {
    const last = call.options.prompt.at(-1);
    const text =
      last?.role === 'user'
        ? last.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n')
        : '';
    const latest = text
      .split('\n\n')
      .filter((b) => /^(?:WARNING|CRITICAL|EXIT REFUSED)/.test(b))
      .at(-1);
    if (latest !== undefined && latest !== instruction) {
      instruction = latest;
      done = new Set();
    }
    if (instruction !== undefined) {
      for (const [i, line] of instruction.split('\n').entries()) {
        if (done.has(i)) continue;
        const reply = actionFor(line);
        if (reply === undefined) continue;
        done.add(i);
        return reply;
      }
      instruction = undefined;
    } else if (looked < 2) {
      looked++;
      return { toolCalls: [{ toolName: 'list_files', input: {} }] };
    }
    return { text: 'Done: the bug is fixed.' };
  };
}

function actionFor(line: string): ScriptedReply | undefined {
  const call = (toolName: string, input: Record<string, unknown> = {}) => ({
    toolCalls: [{ toolName, input }],
  });
  if (/search/i.test(line)) return call('search_code', { pattern: 'add' });
  if (/read/i.test(line)) return call('read_file', { path: 'src/math.js' });
  if (/make the change|change:/i.test(line)) {
    return call('write_file', {
      path: 'src/math.js',
      content: 'export const add = (a, b) => a + b;\n',
    });
  }
  if (/verif|run the (?:tests|checks)/i.test(line)) return call('run_tests');
  return undefined;
}

/** The agent: the seed's kind of tools over an in-memory repository, with phase gates. */
export function WeakModelAgent(props: {
  mode: 'warn' | 'block' | 'none';
  files: Map<string, string>;
  model: string;
}) {
  const { files } = props;
  return (
    <>
      <System>You are a coding assistant.</System>
      <PhasePrompt model={props.model} />
      <User>Fix add() in src/math.js: add(2, 3) must be 5.</User>
      <Timeline />
      <Tool
        name="list_files"
        category="discovery"
        input={z.object({})}
        execute={() => [...files.keys()]}
      />
      <Tool
        name="search_code"
        category="search"
        input={z.object({ pattern: z.string() })}
        execute={({ pattern }) => [...files].filter(([, t]) => t.includes(pattern)).map(([p]) => p)}
      />
      <Tool
        name="read_file"
        category="read"
        input={z.object({ path: z.string() })}
        execute={({ path }) => files.get(path) ?? ''}
      />
      <Tool
        name="write_file"
        category="patch"
        input={z.object({ path: z.string(), content: z.string() })}
        execute={({ path, content }) => {
          files.set(path, content);
          return 'written';
        }}
      />
      <Tool
        name="run_tests"
        category="verify"
        input={z.object({})}
        execute={() => {
          const ok = files.get('src/math.js')?.includes('a + b') === true;
          return { exitCode: ok ? 0 : 1, output: ok ? '1 passed' : '1 failed: add(2, 3) is -1' };
        }}
      />
      {props.mode === 'none' ? null : <PhaseGates mode={props.mode} />}
    </>
  );
}

/** One run of the weak model, with or without phase gates. */
export async function runWeakModel(
  mode: 'warn' | 'block' | 'none',
  onEvent?: (e: AgateEvent) => void,
): Promise<{ result: RunResult; files: Map<string, string> }> {
  const files = new Map([
    ['src/math.js', 'export const add = (a, b) => a - b;\n'],
    ['README.md', '# calc\n'],
  ]);
  const model = scriptedModel([followsLastInstruction()], { whenExhausted: 'repeat-last' });
  const result = await run(<WeakModelAgent mode={mode} files={files} model="qwen2.5-coder:7b" />, {
    model,
    maxTicks: 20,
    ...(onEvent ? { onEvent } : {}),
  });
  return { result, files };
}
