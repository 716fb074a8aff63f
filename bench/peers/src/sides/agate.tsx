import { createSession, type RunResult, run } from '@agate/core';
import { BenchAgent } from '../../../src/workload.js';
import { PEER_TOOL_COUNT } from '../script.js';
import type { Side, SideRun } from '../side.js';
import { aiSdkModel } from './ai-sdk-model.js';

const options = (steps: number, latencyMs = 0) => ({
  model: aiSdkModel(steps, latencyMs),
  maxTicks: steps + 2,
});

function outcome(result: RunResult, model: { calls: number }): SideRun {
  if (result.status !== 'completed') {
    throw new Error(`Agate run ended ${result.status}: ${result.reason ?? ''}`, {
      cause: result.error,
    });
  }
  return { modelCalls: model.calls, text: result.text };
}

/** Agate: `run()` of the bench agent with its first two tools (the main bench's agent). */
export const agate: Side = {
  id: 'agate',
  name: 'Agate',
  label: 'Agate `run()`',
  packages: ['@agate/core', 'ai'],
  async run(steps, { latencyMs } = {}) {
    const opts = options(steps, latencyMs);
    return outcome(await run(<BenchAgent tools={PEER_TOOL_COUNT} />, opts), opts.model);
  },
  async idle(steps) {
    const opts = options(steps);
    const session = createSession(<BenchAgent tools={PEER_TOOL_COUNT} />, opts);
    return { run: outcome(await session.run(), opts.model), held: session };
  },
};
