import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { executeTool, latency, PEER_TOOLS, Script, TASK, toolInput, USAGE } from '../script.js';
import type { Side, SideRun } from '../side.js';

/**
 * A LangChain chat model answering from the script: a tool call as an `AIMessage` with
 * `tool_calls` (its arguments parsed, as a provider integration parses them), or the final
 * text. Drives both LangGraph's `createReactAgent` and LangChain's `createAgent`.
 */
export class ScriptedChatModel extends BaseChatModel {
  readonly #script: Script;
  readonly #latencyMs: number;

  constructor(script: Script, latencyMs = 0) {
    super({});
    this.#script = script;
    this.#latencyMs = latencyMs;
  }

  _llmType(): string {
    return 'agate-bench-scripted';
  }

  /** The script names its tools itself; binding them changes nothing. */
  override bindTools(): this {
    return this;
  }

  async _generate(
    _messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    options.signal?.throwIfAborted();
    await latency(this.#latencyMs);
    const reply = this.#script.next();
    const usage_metadata = {
      input_tokens: USAGE.input,
      output_tokens: USAGE.output,
      total_tokens: USAGE.input + USAGE.output,
    };
    const message =
      'text' in reply
        ? new AIMessage({ content: reply.text, usage_metadata })
        : new AIMessage({
            content: '',
            tool_calls: [
              {
                id: reply.callId,
                name: reply.toolName,
                args: JSON.parse(reply.input) as Record<string, unknown>,
                type: 'tool_call',
              },
            ],
            usage_metadata,
          });
    return {
      generations: [{ text: typeof message.content === 'string' ? message.content : '', message }],
    };
  }
}

/** The two tools as LangChain tools, made once (zod schema, the counted `execute`). */
export const LANGCHAIN_TOOLS = PEER_TOOLS.map(({ name, description }) =>
  tool(async (input) => executeTool(input), { name, description, schema: toolInput }),
);

/** The run's final text: the last message's content. */
export function lastText(messages: readonly BaseMessage[]): string {
  const content = messages.at(-1)?.content;
  return typeof content === 'string' ? content : '';
}

/** What `createReactAgent` and `createAgent` both return, as far as the bench uses it. */
interface MessagesAgent {
  invoke(
    input: { messages: { role: 'user'; content: string }[] },
    config: { recursionLimit: number },
  ): Promise<{ messages: BaseMessage[] }>;
}

/**
 * A side on LangGraph: the agent made for the run by `make` on the scripted model, invoked
 * with the task. A step is two graph nodes (the model, then the tools), so the recursion limit
 * (25 by default) is raised to allow the run's steps.
 */
export function langGraphSide(
  meta: Pick<Side, 'id' | 'name' | 'label' | 'packages'>,
  make: (model: ScriptedChatModel) => MessagesAgent,
): Side {
  const once = async (steps: number, latencyMs = 0) => {
    const script = new Script(steps);
    const result = await make(new ScriptedChatModel(script, latencyMs)).invoke(
      { messages: [{ role: 'user', content: TASK }] },
      { recursionLimit: 2 * steps + 10 },
    );
    const run: SideRun = { modelCalls: script.calls, text: lastText(result.messages) };
    return { run, messages: result.messages };
  };
  return {
    ...meta,
    async run(steps, { latencyMs } = {}) {
      return (await once(steps, latencyMs)).run;
    },
    async idle(steps) {
      const { run, messages } = await once(steps);
      // The graph's state: the messages a next `invoke` continues from.
      return { run, held: messages };
    },
  };
}
