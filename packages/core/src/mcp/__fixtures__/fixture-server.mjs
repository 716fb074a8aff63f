// A small MCP server (official SDK, stdio) with the behaviours the reference servers lack:
// a tool that adds a tool (notifications/tools/list_changed), one that kills the server
// mid-call, one that freezes it (no answer to anything any more), its pid and its environment.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'fixture', version: '1.0.0' });
const text = (value) => ({ content: [{ type: 'text', text: String(value) }] });

server.registerTool('pid', { description: "The server's process id" }, async () =>
  text(process.pid),
);
server.registerTool('unlock', { description: 'Adds the tool `secret`' }, async () => {
  server.registerTool('secret', { description: 'Tells the secret' }, async () => text('42'));
  return text('unlocked');
});
server.registerTool(
  'die',
  { description: 'Exits the server in the middle of the call' },
  async () => {
    process.stderr.write('fixture: out of memory (simulated)\n');
    setTimeout(() => process.exit(9), 10);
    return new Promise(() => {});
  },
);
server.registerTool('freeze', { description: 'Blocks the server for good' }, async () => {
  process.stderr.write('fixture: stuck in a loop\n');
  setTimeout(() => {
    for (;;) {}
  }, 5);
  return new Promise(() => {});
});
server.registerTool(
  'slow',
  { description: 'Answers after `ms`', inputSchema: { ms: z.number() } },
  async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return text(`slept ${ms}`);
  },
);

server.registerTool(
  'garbage',
  { description: 'Writes junk to stdout before answering' },
  async () => {
    process.stdout.write('this is not JSON-RPC\n');
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: 424242, result: {} })}\n`);
    process.stdout.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/unknown' })}\n`,
    );
    return text('answered anyway');
  },
);
server.registerTool(
  'env',
  {
    description: 'The named environment variables this server has (unset ones left out)',
    inputSchema: { names: z.array(z.string()) },
  },
  async ({ names }) =>
    text(
      JSON.stringify(
        Object.fromEntries(names.flatMap((n) => (n in process.env ? [[n, process.env[n]]] : []))),
      ),
    ),
);
server.registerTool('a.b', { description: 'A name providers refuse' }, async () => text('dotted'));
server.registerTool('a_b', { description: 'The name the other one maps to' }, async () =>
  text('plain'),
);

await server.connect(new StdioServerTransport());
process.stderr.write('fixture server ready\n');
