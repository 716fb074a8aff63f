import { type ScriptedTurn, scriptedModel } from '@agate/testing';
import type { LanguageModel } from 'ai';

const PREMATURE_DONE = 'Done: add() is fixed.';

/**
 * A model that needs no key or network: each reply depends on what the request already holds
 * (which tools were called, whether it claimed to be done), so every chat plays the same
 * story — a change, a premature "done" the gate refuses, the tests, a checkpoint, the answer.
 */
export function offlineModel(): LanguageModel {
  const turn: ScriptedTurn = ({ options }) => {
    const sent = JSON.stringify(options.prompt);
    const called = (tool: string) => sent.includes(`"toolName":"${tool}"`);
    const steps = !called('write_file')
      ? 0
      : !sent.includes(PREMATURE_DONE)
        ? 1
        : !called('run_tests')
          ? 2
          : !called('submit_checkpoint')
            ? 3
            : 4;
    switch (steps) {
      case 0:
        return {
          text: 'I found the bug in add(): it subtracts. Fixing it.',
          toolCalls: [
            {
              toolName: 'write_file',
              input: { path: 'math.js', content: 'export const add = (a, b) => a + b;\n' },
            },
          ],
        };
      case 1:
        return PREMATURE_DONE;
      case 2:
        return {
          text: 'Running the tests first.',
          toolCalls: [{ toolName: 'run_tests', input: {} }],
        };
      case 3:
        return {
          text: 'All 3 tests pass. Submitting the change for review.',
          toolCalls: [
            {
              toolName: 'submit_checkpoint',
              input: { id: 'review', summary: 'Fixed add() in math.js; 3 tests pass.' },
            },
          ],
        };
      default:
        return 'The fix is reviewed and approved: add() now adds.';
    }
  };
  return scriptedModel([turn], { whenExhausted: 'repeat-last' });
}
