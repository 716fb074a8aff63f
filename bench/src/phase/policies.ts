import type { ScriptedCall, ScriptedReply } from '@agate/testing';

/** A scripted weak model: one reply per model call, from what it has been sent so far. */
export type Policy = (call: ScriptedCall) => ScriptedReply;

export const POLICY_NAMES = [
  'early stopper',
  'stubborn',
  'looper',
  'follows last instruction',
] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

const call = (toolName: string, input: Record<string, unknown> = {}): ScriptedReply => ({
  toolCalls: [{ toolName, input }],
});
const FINISH: ScriptedReply = { text: 'Done: the task is complete.' };
const FIXED = 'export function add(a, b) {\n  return a + b;\n}\n';

/** The phase-gate text in this request (warnings and refusals come last, as ephemeral content). */
export function phaseTextOf(callInfo: ScriptedCall): string[] {
  const last = callInfo.options.prompt.at(-1);
  if (last === undefined || last.role !== 'user') return [];
  const text = last.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
  return text
    .split('\n\n')
    .filter((block) => /^(?:WARNING|CRITICAL|EXIT REFUSED \(phase gates)/.test(block));
}

/** What a tool call does, in the order a weak model would read an instruction. */
const ACTIONS: Array<[RegExp, () => ScriptedReply]> = [
  [/search/i, () => call('search_code', { pattern: 'add' })],
  [/read/i, () => call('read_file', { path: 'src/math.js' })],
  [
    /make the change|change:|change \(/i,
    () => call('write_file', { path: 'src/math.js', content: FIXED }),
  ],
  [/verif|run the (?:tests|checks)/i, () => call('run_tests')],
];

export function makePolicy(name: PolicyName): Policy {
  switch (name) {
    case 'early stopper': {
      // Looks around twice, then declares victory; after a refusal, one more look and again.
      let sinceFinish = 0;
      return () => {
        if (sinceFinish < 2) {
          sinceFinish++;
          return call(sinceFinish % 2 === 1 ? 'list_files' : 'repo_info');
        }
        sinceFinish = 1;
        return FINISH;
      };
    }
    case 'stubborn':
      return () => FINISH;
    case 'looper':
      return (c) => call(c.index % 2 === 0 ? 'list_files' : 'repo_info');
    case 'follows last instruction': {
      // Does what the last phase-gate text asked, item by item; with no instruction, it
      // behaves like the early stopper.
      let instruction: string | undefined;
      let done = new Set<number>();
      let looked = 0;
      return (c) => {
        const texts = phaseTextOf(c);
        const latest = texts.at(-1);
        if (latest !== undefined && latest !== instruction) {
          instruction = latest;
          done = new Set();
        }
        if (instruction !== undefined) {
          const lines = instruction.split('\n');
          for (const [i, line] of lines.entries()) {
            if (done.has(i)) continue;
            const action = ACTIONS.find(([pattern]) => pattern.test(line));
            if (action === undefined) continue;
            done.add(i);
            return action[1]();
          }
          instruction = undefined;
          return FINISH;
        }
        if (looked < 2) {
          looked++;
          return call('list_files');
        }
        return FINISH;
      };
    }
  }
}
