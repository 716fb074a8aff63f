import type { ModelMessage } from 'ai';
import { runGenerateTextLoop } from '../../../src/workload.js';
import { MESSAGES, PEER_TOOL_COUNT } from '../script.js';
import type { Side, SideRun } from '../side.js';
import { aiSdkModel } from './ai-sdk-model.js';

/** The fastest plain loop of the main bench, with the two tools. */
async function once(
  steps: number,
  latencyMs = 0,
): Promise<{ run: SideRun; messages: ModelMessage[] }> {
  const model = aiSdkModel(steps, latencyMs);
  const { result } = await runGenerateTextLoop(steps + 1, {
    model,
    tools: PEER_TOOL_COUNT,
    preconverted: true,
    sdkTelemetryOff: true,
  });
  const { text, responseMessages } = result as { text: string; responseMessages: ModelMessage[] };
  return { run: { modelCalls: model.calls, text }, messages: responseMessages };
}

export const plain: Side = {
  id: 'plain',
  name: 'the plain loop',
  label:
    "Fastest plain loop: AI SDK `generateText`, tools made once (`tool()` + `zodSchema`), the SDK's telemetry off",
  packages: ['ai'],
  async run(steps, { latencyMs } = {}) {
    return (await once(steps, latencyMs)).run;
  },
  async idle(steps) {
    const { run, messages } = await once(steps);
    // What a caller keeps to continue: the prompt's messages and every step's response messages.
    return { run, held: [...MESSAGES, ...messages] };
  },
};
