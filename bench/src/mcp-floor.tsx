/**
 * Where the MCP row's gap comes from: `pnpm tsx --expose-gc --conditions=@agate/source
 * src/mcp-floor.tsx [reps]` (NODE_ENV=production). The row's two sides (`<McpServer>` ticks and
 * a plain `generateText` loop over the AI SDK MCP client's echo) beside the same two loops on an
 * `echo` tool that makes no MCP call: one that waits a turn of the event loop (`setImmediate`),
 * one that sends the same JSON-RPC line through a `cat` child and reads it back. Every run
 * spawns a child before its clock, as the row's do. Agate's MCP-specific cost is its MCP run
 * minus its `cat` run, set against the plain loop's; the rest of the gap is the tick's own work.
 * Not part of `pnpm bench`: a diagnosis, printed as medians [min–max] of CPU ms per tick/step.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createSession, McpServer, System, Timeline, Tools, User } from '@agate/core';
import { createMCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { dynamicTool, generateText, isStepCount, jsonSchema, type ToolSet } from 'ai';
import type { ReactElement } from 'react';
import { echoModel, MESSAGES, SERVER, SYSTEM } from './mcp-call.js';
import { cpuMs, summarize } from './stats.js';

const CALLS = 50;
const REPS = Number(process.argv[2] ?? 6);
const INPUT = jsonSchema({
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
  additionalProperties: false,
});
type Echoed = { content: { type: 'text'; text: string }[] };

const probe = await createMCPClient({ transport: new StdioMCPTransport(SERVER) });
const mcpEcho = (await probe.tools()).echo;
await probe.close();
if (mcpEcho === undefined) throw new Error('server-everything has no echo tool');
/** The MCP tool's own conversion of results, so all tools' results reach the model alike. */
const toModelOutput = mcpEcho.toModelOutput as unknown as
  | Parameters<typeof dynamicTool>[0]['toModelOutput']
  | undefined;

function echoTool(wait: (message: string) => Promise<string>) {
  return dynamicTool({
    description: mcpEcho?.description ?? 'Echo',
    inputSchema: INPUT,
    execute: async (input): Promise<Echoed> => {
      const message = (input as { message: string }).message;
      return { content: [{ type: 'text', text: `Echo: ${await wait(message)}` }] };
    },
    ...(toModelOutput !== undefined ? { toModelOutput } : {}),
  });
}

/** An echo through a `cat` child: the same line an MCP client writes, read back. */
function catEcho(cat: ChildProcess) {
  let buffer = '';
  let pending: ((line: string) => void) | undefined;
  cat.stdout?.setEncoding('utf8');
  cat.stdout?.on('data', (chunk: string) => {
    buffer += chunk;
    const end = buffer.indexOf('\n');
    if (end < 0) return;
    const line = buffer.slice(0, end);
    buffer = buffer.slice(end + 1);
    pending?.(line);
  });
  return echoTool(
    (message) =>
      new Promise((resolve) => {
        pending = (line) => resolve(JSON.parse(line).params.arguments.message);
        const request = { jsonrpc: '2.0', id: 1, method: 'tools/call' };
        const params = { name: 'echo', arguments: { message } };
        cat.stdin?.write(`${JSON.stringify({ ...request, params })}\n`);
      }),
  );
}

const turnEcho = echoTool(async (message) => {
  await new Promise((resolve) => setImmediate(resolve));
  return message;
});

function Agent(props: { tools: ReactElement }) {
  return (
    <>
      <System>{SYSTEM}</System>
      <User>{MESSAGES[0]?.content as string}</User>
      {props.tools}
      <Timeline />
    </>
  );
}

async function agateTicks(tools: ReactElement): Promise<number> {
  const session = createSession(<Agent tools={tools} />, { model: echoModel(), streaming: false });
  try {
    await session.tick();
    const start = cpuMs();
    for (let i = 0; i < CALLS; i++) await session.tick();
    return (cpuMs() - start) / CALLS;
  } finally {
    await session.close();
    session.dispose();
  }
}

async function plainSteps(tools: ToolSet): Promise<number> {
  const start = cpuMs();
  await generateText({
    model: echoModel(),
    instructions: SYSTEM,
    messages: MESSAGES,
    tools,
    stopWhen: isStepCount(CALLS),
    telemetry: { isEnabled: false },
  });
  return (cpuMs() - start) / CALLS;
}

async function withCat<T>(work: (cat: ChildProcess) => Promise<T>): Promise<T> {
  const cat = spawn('cat', [], { stdio: ['pipe', 'pipe', 'ignore'] });
  try {
    return await work(cat);
  } finally {
    cat.kill();
  }
}

const spawnTrue = () => new Promise((resolve) => spawn('true').once('close', resolve));
const options = { echo: { timeoutMs: 60_000 } };

const variants = {
  agateMcp: () => agateTicks(<McpServer name="everything" {...SERVER} include={['echo']} />),
  plainMcp: async () => {
    const client = await createMCPClient({ transport: new StdioMCPTransport(SERVER) });
    try {
      const { echo } = await client.tools();
      if (echo === undefined) throw new Error('server-everything has no echo tool');
      return await plainSteps({ echo });
    } finally {
      await client.close();
    }
  },
  agateCat: () =>
    withCat((cat) => agateTicks(<Tools tools={{ echo: catEcho(cat) }} toolOptions={options} />)),
  plainCat: () => withCat((cat) => plainSteps({ echo: catEcho(cat) })),
  agateTurn: async () => {
    await spawnTrue();
    return agateTicks(<Tools tools={{ echo: turnEcho }} toolOptions={options} />);
  },
  plainTurn: async () => {
    await spawnTrue();
    return plainSteps({ echo: turnEcho });
  },
};
type Name = keyof typeof variants;
const names = Object.keys(variants) as Name[];

for (const name of names) await variants[name]();
const best = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Name, number[]>;
for (let rep = 0; rep < REPS; rep++) {
  const fastest = {} as Record<Name, number>;
  for (let round = 0; round < 3; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + rep + round) % names.length] as Name;
      fastest[name] = Math.min(fastest[name] ?? Number.POSITIVE_INFINITY, await variants[name]());
    }
  }
  for (const name of names) best[name].push(fastest[name]);
}
const show = (values: number[]) => {
  const s = summarize(values);
  return `${s.median.toFixed(3)} [${s.min.toFixed(3)}–${s.max.toFixed(3)}]`;
};
const per = (f: (i: number) => number) => show(best.agateMcp.map((_, i) => f(i)));
for (const name of names) console.log(`${name.padEnd(10)} ${show(best[name])} ms`);
console.log(`ratio, MCP echo     ${per((i) => best.agateMcp[i]! / best.plainMcp[i]!)}`);
console.log(`ratio, cat echo     ${per((i) => best.agateCat[i]! / best.plainCat[i]!)}`);
console.log(`ratio, a loop turn  ${per((i) => best.agateTurn[i]! / best.plainTurn[i]!)}`);
console.log(`Agate MCP - cat     ${per((i) => best.agateMcp[i]! - best.agateCat[i]!)} ms`);
console.log(`plain MCP - cat     ${per((i) => best.plainMcp[i]! - best.plainCat[i]!)} ms`);
console.log(`Agate - plain, MCP  ${per((i) => best.agateMcp[i]! - best.plainMcp[i]!)} ms`);
console.log(`Agate - plain, cat  ${per((i) => best.agateCat[i]! - best.plainCat[i]!)} ms`);
console.log(`Agate - plain, turn ${per((i) => best.agateTurn[i]! - best.plainTurn[i]!)} ms`);
process.exit(0);
