import { fileURLToPath } from 'node:url';
import { createSession, McpServer, System, Timeline, User } from '@agate/core';
import { createMCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { generateText, isStepCount, type ModelMessage } from 'ai';
import { type Summary, summarize } from './stats.js';

/** A tool call through `<McpServer>` may cost at most this much of the plain AI SDK loop's. */
export const MCP_CALL_TARGET = 1.1;

export interface McpCallResult {
  reps: number;
  /** Calls per repetition (one per tick / step). */
  calls: number;
  /** Wall ms per tick: `<McpServer>` (stdio, echo) in `session.tick()`s. */
  agate: Summary;
  /** Wall ms per step: `generateText` over the AI SDK MCP client's tools. */
  plain: Summary;
  /** Agate / plain, per repetition. */
  ratio: Summary;
}

const EVERYTHING = fileURLToPath(
  import.meta.resolve('@modelcontextprotocol/server-everything/dist/index.js'),
);
const SERVER = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
const SYSTEM = 'Echo what you are asked to.';
const MESSAGES: ModelMessage[] = [{ role: 'user', content: 'Echo the numbers, one call each.' }];

const USAGE: LanguageModelV4Usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

/** A model that calls `echo` on every call (nothing kept per call, like the tick benchmark's). */
function echoModel(): LanguageModelV4 {
  let calls = 0;
  return {
    specificationVersion: 'v4',
    provider: 'agate-bench',
    modelId: 'echo',
    supportedUrls: {},
    async doGenerate(options: LanguageModelV4CallOptions) {
      options.abortSignal?.throwIfAborted();
      const index = calls++;
      return {
        content: [
          {
            type: 'tool-call',
            toolCallId: `call-${index}`,
            toolName: 'echo',
            input: JSON.stringify({ message: `call ${index}` }),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage: USAGE,
        warnings: [],
      };
    },
    async doStream() {
      throw new Error('the MCP benchmark model does not stream');
    },
  };
}

function Agent() {
  return (
    <>
      <System>{SYSTEM}</System>
      <User>{MESSAGES[0]!.content as string}</User>
      <McpServer name="everything" {...SERVER} include={['echo']} />
      <Timeline />
    </>
  );
}

/** Ms per tick of `calls` ticks on a session whose server is already connected. */
async function agateRep(calls: number): Promise<number> {
  const session = createSession(<Agent />, { model: echoModel(), streaming: false });
  try {
    await session.tick(); // connects (not measured: the plain side connects once, too)
    const started = performance.now();
    for (let i = 0; i < calls; i++) await session.tick();
    return (performance.now() - started) / calls;
  } finally {
    await session.close();
    session.dispose();
  }
}

/**
 * A tool call through `<McpServer>` (stdio, the reference server's `echo`) against the same
 * call in a plain `generateText` loop over the AI SDK MCP client's tools: alternating
 * repetitions, each side with its server started and connected before the clock starts,
 * wall time per tick (the call's round trip to the server process is most of it).
 */
export async function measureMcpCall(reps: number, calls: number): Promise<McpCallResult> {
  const client = await createMCPClient({ transport: new StdioMCPTransport(SERVER) });
  try {
    const { echo } = await client.tools();
    if (echo === undefined) throw new Error('server-everything has no echo tool');
    const tools = { echo };
    const plainRep = async (): Promise<number> => {
      const started = performance.now();
      const result = await generateText({
        model: echoModel(),
        instructions: SYSTEM,
        messages: MESSAGES,
        tools,
        stopWhen: isStepCount(calls),
      });
      if (result.steps.length !== calls) throw new Error('plain MCP loop stopped early');
      return (performance.now() - started) / calls;
    };
    await agateRep(5);
    await plainRep();
    const a: number[] = [];
    const p: number[] = [];
    for (let i = 0; i < reps; i++) {
      if (i % 2 === 0) {
        a.push(await agateRep(calls));
        p.push(await plainRep());
      } else {
        p.push(await plainRep());
        a.push(await agateRep(calls));
      }
    }
    return {
      reps,
      calls,
      agate: summarize(a),
      plain: summarize(p),
      ratio: summarize(a.map((v, i) => v / p[i]!)),
    };
  } finally {
    await client.close();
  }
}
