import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelResponse,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import {
  executeTool,
  latency,
  PEER_TOOLS,
  Script,
  SYSTEM,
  TASK,
  toolInput,
  USAGE,
} from '../script.js';
import type { Side } from '../side.js';

// No key and no network: traces would be exported to OpenAI's platform.
setTracingDisabled(true);

/** An Agents SDK `Model` answering from the script (a function call, or the final message). */
class ScriptedModel implements Model {
  readonly #script: Script;
  readonly #latencyMs: number;

  constructor(script: Script, latencyMs: number) {
    this.#script = script;
    this.#latencyMs = latencyMs;
  }

  async getResponse(): Promise<ModelResponse> {
    await latency(this.#latencyMs);
    const reply = this.#script.next();
    const usage = new Usage({
      requests: 1,
      inputTokens: USAGE.input,
      outputTokens: USAGE.output,
      totalTokens: USAGE.input + USAGE.output,
    });
    if ('text' in reply) {
      return {
        usage,
        output: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: reply.text }],
          },
        ],
      };
    }
    return {
      usage,
      output: [
        {
          type: 'function_call',
          callId: reply.callId,
          name: reply.toolName,
          arguments: reply.input,
          status: 'completed',
        },
      ],
    };
  }

  // biome-ignore lint/correctness/useYield: never called (the bench runs without streaming).
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the peers bench does not stream');
  }
}

/** The two tools as Agents SDK function tools, made once (zod parameters, the counted execute). */
const TOOLS = PEER_TOOLS.map(({ name, description }) =>
  tool({ name, description, parameters: toolInput, execute: async (input) => executeTool(input) }),
);

async function once(steps: number, latencyMs = 0) {
  const script = new Script(steps);
  const agent = new Agent({
    name: 'bench',
    instructions: SYSTEM,
    tools: TOOLS,
    model: new ScriptedModel(script, latencyMs),
  });
  const result = await run(agent, TASK, { maxTurns: steps + 2 });
  const text = typeof result.finalOutput === 'string' ? result.finalOutput : '';
  return { run: { modelCalls: script.calls, text }, history: result.history as AgentInputItem[] };
}

/** The OpenAI Agents SDK: an `Agent` and `run()`, tracing off. */
export const openaiAgents: Side = {
  id: 'openaiAgents',
  name: 'OpenAI Agents SDK',
  label: 'OpenAI Agents SDK `run()` (tracing off)',
  packages: ['@openai/agents'],
  async run(steps, { latencyMs } = {}) {
    return (await once(steps, latencyMs)).run;
  },
  async idle(steps) {
    const { run, history } = await once(steps);
    // The SDK's docs continue a conversation from `result.history`.
    return { run, held: history };
  },
};
