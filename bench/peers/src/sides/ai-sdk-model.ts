import type { LanguageModelV4 } from '@ai-sdk/provider';
import { benchModel, withLatency } from '../../../src/workload.js';
import { PEER_TOOL_COUNT } from '../script.js';

/**
 * The bench workload's scripted AI SDK model (what Agate, the plain loop and Mastra take) for a
 * run of `steps` tool calls, answering after `latencyMs` when asked to.
 */
export function aiSdkModel(
  steps: number,
  latencyMs = 0,
): LanguageModelV4 & { readonly calls: number } {
  const model = benchModel(steps + 1, PEER_TOOL_COUNT);
  return latencyMs === 0 ? model : withLatency(model, latencyMs);
}
