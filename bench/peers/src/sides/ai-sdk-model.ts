import type { LanguageModelV4 } from '@ai-sdk/provider';
import { benchModel } from '../../../src/workload.js';
import { latency, PEER_TOOL_COUNT } from '../script.js';

/**
 * The bench workload's scripted AI SDK model (what Agate, the plain loop and Mastra take) for a
 * run of `steps` tool calls, answering after `latencyMs` when asked to.
 */
export function aiSdkModel(
  steps: number,
  latencyMs = 0,
): LanguageModelV4 & { readonly calls: number } {
  const inner = benchModel(steps + 1, PEER_TOOL_COUNT);
  if (latencyMs === 0) return inner;
  return {
    specificationVersion: 'v4',
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: {},
    get calls() {
      return inner.calls;
    },
    async doGenerate(options) {
      await latency(latencyMs);
      return inner.doGenerate(options);
    },
    async doStream(options) {
      await latency(latencyMs);
      return inner.doStream(options);
    },
  };
}
