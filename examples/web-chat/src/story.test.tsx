import {
  type AgateUIMessage,
  approveCheckpoint,
  createMemoryStore,
  openChatSession,
  toUIMessageStream,
} from '@agate/core';
import { readUIMessageStream } from 'ai';
import { describe, expect, it } from 'vitest';
import { ChatAgent } from './agent.js';
import { offlineModel } from './offline-model.js';

async function reply(stream: ReadableStream<unknown>): Promise<AgateUIMessage> {
  let last: AgateUIMessage | undefined;
  for await (const message of readUIMessageStream<AgateUIMessage>({
    stream: stream as ReadableStream<never>,
  })) {
    last = message;
  }
  return last as AgateUIMessage;
}

const brief = (message: AgateUIMessage) =>
  message.parts.flatMap((part) => {
    if (part.type === 'text') return [`text: ${part.text}`];
    if (part.type === 'data-agate-gate') return [`refused by ${part.data.gates.join(',')}`];
    if (part.type === 'data-agate-approval') return [`awaiting ${part.data.checkpointId}`];
    if (part.type === 'data-agate-checkpoint')
      return [`checkpoint ${part.data.id} ${part.data.state}`];
    if (part.type === 'data-agate-status') return [`status ${part.data.status}`];
    if (part.type.startsWith('tool-')) return [part.type];
    return [];
  });

describe('the web-chat story (what the page shows, without a browser)', () => {
  it('a change, a refused "done", the tests, a checkpoint; approved, it completes', async () => {
    const store = createMemoryStore();
    const model = offlineModel();
    const files = new Map<string, string>();
    const first = await openChatSession(
      <ChatAgent files={files} />,
      {
        id: 'chat-a',
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Fix add()' }] }],
      },
      { model, store },
    );
    const paused = brief(await reply(toUIMessageStream(first.session, { onFinish: first.save })));
    expect(paused).toEqual([
      'text: I found the bug in add(): it subtracts. Fixing it.',
      'tool-write_file',
      'text: Done: add() is fixed.',
      'refused by verification',
      'text: Running the tests first.',
      'tool-run_tests',
      'text: All 3 tests pass. Submitting the change for review.',
      'tool-submit_checkpoint',
      'checkpoint review pending',
      'awaiting review',
      'status awaiting-approval',
    ]);
    expect(files.get('math.js')).toContain('a + b');

    await approveCheckpoint(store, 'chat-a', 'review', { by: 'web reviewer' });
    const next = await openChatSession(
      <ChatAgent files={files} />,
      { id: 'chat-a', messages: [{ id: 'a1', role: 'assistant', parts: [] }] },
      { model, store },
    );
    const done = brief(await reply(toUIMessageStream(next.session, { onFinish: next.save })));
    expect(done).toEqual([
      'checkpoint review approved',
      'text: The fix is reviewed and approved: add() now adds.',
      'status completed',
    ]);
  });
});
