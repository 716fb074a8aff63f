import {
  type ScriptedCall,
  type ScriptedModel,
  type ScriptedReply,
  scriptedModel,
} from '@agate/testing';
import { FIXED_MATH } from './workspace.js';

type Part = { type: string; toolName?: string; output?: unknown; text?: string };
type Message = { role: string; content: string | Part[] };

/** What one request shows: whose it is (by its system text) and which tools already answered. */
function read(call: ScriptedCall) {
  const prompt = call.options.prompt as unknown as Message[];
  const system = prompt
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content))
    .join('\n');
  const parts = prompt.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
  const called = (name: string) => parts.some((p) => p.type === 'tool-call' && p.toolName === name);
  const answered = (name: string) =>
    parts.some((p) => p.type === 'tool-result' && p.toolName === name);
  return { system, called, answered };
}

const call = (toolName: string, input: unknown, toolCallId?: string) => ({
  toolName,
  input,
  ...(toolCallId !== undefined ? { toolCallId } : {}),
});

/** The coder: read, fix, hand review and docs to the sub-agents at once, summarize. */
function coder(seen: ReturnType<typeof read>): ScriptedReply {
  if (!seen.called('read_file')) {
    return { text: 'Reading math.js.', toolCalls: [call('read_file', { path: 'math.js' })] };
  }
  if (!seen.called('write_file')) {
    return {
      text: 'add() subtracts; fixing it.',
      toolCalls: [call('write_file', { path: 'math.js', content: FIXED_MATH })],
    };
  }
  if (!seen.called('reviewer')) {
    return {
      text: 'Fixed. Asking for a review and a docs check.',
      toolCalls: [
        call(
          'reviewer',
          { change: 'add() in math.js now returns a + b (it returned a - b).' },
          'call_review',
        ),
        call('docs', { topic: 'add(a, b)' }, 'call_docs'),
      ],
    };
  }
  return {
    text: 'Fixed add() in math.js; the reviewer approved after the tests passed, and the README is accurate.',
  };
}

/**
 * The reviewer, hasty at first: it reads the change and tries to approve without running the
 * tests. Its verification gate refuses; it runs them, and answers once they passed.
 */
function reviewer(seen: ReturnType<typeof read>): ScriptedReply {
  if (!seen.called('read_file')) {
    return { text: 'Reading the change.', toolCalls: [call('read_file', { path: 'math.js' })] };
  }
  if (!seen.called('final_answer')) {
    return {
      text: 'The change looks right.',
      toolCalls: [call('final_answer', { verdict: 'approve', testsPassed: false, issues: [] })],
    };
  }
  if (!seen.answered('run_tests')) {
    return { text: 'Running the tests first.', toolCalls: [call('run_tests', {})] };
  }
  return {
    text: 'Tests pass.',
    toolCalls: [call('final_answer', { verdict: 'approve', testsPassed: true, issues: [] })],
  };
}

function docs(seen: ReturnType<typeof read>): ScriptedReply {
  if (!seen.called('read_file')) {
    return { text: 'Reading the README.', toolCalls: [call('read_file', { path: 'README.md' })] };
  }
  return { text: 'The README is accurate: add(a, b) adds two numbers.' };
}

/**
 * One offline model for the coder and both sub-agents (they run on the parent's model): each
 * reply follows from the request it gets, so the parallel children may call it in any order.
 */
export function offlineModel(): ScriptedModel {
  return scriptedModel(
    [
      (request) => {
        const seen = read(request);
        if (seen.system.includes('You review a code change')) return reviewer(seen);
        if (seen.system.includes('README')) return docs(seen);
        return coder(seen);
      },
    ],
    { whenExhausted: 'repeat-last', modelId: 'offline-review-agent' },
  );
}
