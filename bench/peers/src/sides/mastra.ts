import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { executeTool, PEER_TOOLS, SYSTEM, TASK, toolInput } from '../script.js';
import type { Side } from '../side.js';
import { aiSdkModel } from './ai-sdk-model.js';

/** The two tools as Mastra tools, made once (zod input schema, the counted execute). */
const TOOLS = Object.fromEntries(
  PEER_TOOLS.map(({ name, description }) => [
    name,
    createTool({
      id: name,
      description,
      inputSchema: toolInput,
      execute: async (input) => executeTool(input),
    }),
  ]),
);

/**
 * Mastra types its models against its own copy of `@ai-sdk/provider` (an older 4.0.x): the same
 * `LanguageModelV4` at run time, another declaration to the type checker.
 */
type MastraModel = ConstructorParameters<typeof Agent>[0]['model'];

async function once(steps: number, latencyMs = 0) {
  const model = aiSdkModel(steps, latencyMs);
  const agent = new Agent({
    id: 'bench',
    name: 'bench',
    instructions: SYSTEM,
    model: model as unknown as MastraModel,
    tools: TOOLS,
  });
  const result = await agent.generate(TASK, { maxSteps: steps + 2 });
  return {
    run: { modelCalls: model.calls, text: result.text },
    messages: result.response.messages ?? [],
  };
}

/** Mastra: an `Agent` on the AI SDK 7 model, `generate()`, no memory configured. */
export const mastra: Side = {
  id: 'mastra',
  name: 'Mastra',
  label: 'Mastra `Agent.generate()`',
  packages: ['@mastra/core'],
  async run(steps, { latencyMs } = {}) {
    return (await once(steps, latencyMs)).run;
  },
  async idle(steps) {
    const { run, messages } = await once(steps);
    // No memory configured: the caller keeps the conversation (the task and the response's messages).
    return { run, held: [{ role: 'user', content: TASK }, ...messages] };
  },
};
