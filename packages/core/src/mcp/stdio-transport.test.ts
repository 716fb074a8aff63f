import type { JSONRPCMessage } from '@ai-sdk/mcp';
import { afterEach, describe, expect, it } from 'vitest';
import { StdioTransport } from './stdio-transport.js';

// A real child process writes stdout in the chunks given (a pause after each write makes each
// arrive on its own), and the transport's messages are collected until the child exits.

let open: StdioTransport | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function read(chunks: Buffer[], maxLineBytes?: number) {
  const script = `
    const chunks = ${JSON.stringify(chunks.map((c) => c.toString('base64')))};
    (async () => {
      for (const chunk of chunks) {
        await new Promise((done) => process.stdout.write(Buffer.from(chunk, 'base64'), done));
        await new Promise((done) => setTimeout(done, 20));
      }
    })();`;
  const transport = new StdioTransport(
    { command: process.execPath, args: ['-e', script] },
    maxLineBytes,
  );
  open = transport;
  const messages: JSONRPCMessage[] = [];
  transport.onmessage = (message) => messages.push(message);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  await transport.start();
  await closed;
  return { messages, stderrTail: transport.stderrTail };
}

const reply = (id: number, text: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, result: { text } });
const texts = (messages: JSONRPCMessage[]) =>
  messages.map((m) => ('result' in m ? (m.result as { text: string }).text : undefined));

describe('StdioTransport reading stdout', () => {
  it('joins a message split over chunks, even inside a multi-byte character', async () => {
    const bytes = Buffer.from(`${reply(1, 'café ☕ done')}\n`);
    const cut = bytes.indexOf(Buffer.from('☕')) + 1; // between the character's bytes
    const { messages } = await read([
      bytes.subarray(0, 10),
      bytes.subarray(10, cut),
      bytes.subarray(cut),
    ]);
    expect(texts(messages)).toEqual(['café ☕ done']);
  });

  it('reads several messages in one chunk, CRLF endings and blank lines included', async () => {
    const chunk = `${reply(1, 'a')}\r\n\n${reply(2, 'b')}\n${reply(3, 'c').slice(0, 5)}`;
    const { messages } = await read([
      Buffer.from(chunk),
      Buffer.from(`${reply(3, 'c').slice(5)}\n`),
    ]);
    expect(texts(messages)).toEqual(['a', 'b', 'c']);
  });

  it('keeps what is not JSON with the stderr tail instead of failing', async () => {
    const { messages, stderrTail } = await read([
      Buffer.from(`server starting...\n${reply(1, 'ok')}\n`),
    ]);
    expect(texts(messages)).toEqual(['ok']);
    expect(stderrTail).toContain('[stdout] server starting...');
  });

  it('drops a line longer than its limit, noted, and reads the lines after it', async () => {
    // Over the limit in parts (the whole line is never held) and in one chunk alike.
    const long = reply(1, 'x'.repeat(3000));
    const { messages, stderrTail } = await read(
      [
        Buffer.from(long.slice(0, 1500)),
        Buffer.from(long.slice(1500, 2800)),
        Buffer.from(`${long.slice(2800)}\n${reply(2, 'after')}\n${long}\n${reply(3, 'last')}\n`),
      ],
      2000,
    );
    expect(texts(messages)).toEqual(['after', 'last']);
    expect(stderrTail).toContain('[stdout] a stdout line over 2000 bytes was dropped');
  });
});
