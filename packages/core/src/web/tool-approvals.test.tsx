import { scriptedModel } from '@agate/testing';
import {
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  readUIMessageStream,
} from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgateUIMessage,
  ChatRequestError,
  createMemoryStore,
  openChatSession,
  System,
  Timeline,
  Tool,
  toUIMessageStream,
} from '../index.js';

const pushed: string[] = [];

function GitAgent() {
  return (
    <>
      <System>You ship code.</System>
      <Timeline />
      <Tool
        name="git_push"
        description="Pushes a branch."
        input={z.object({ branch: z.string() })}
        needsApproval
        execute={({ branch }) => {
          pushed.push(branch);
          return `pushed ${branch}`;
        }}
      />
    </>
  );
}

/** The message the stream builds; `continued`: the assistant message useChat continues. */
async function lastMessage(
  stream: ReadableStream,
  continued?: AgateUIMessage,
): Promise<AgateUIMessage> {
  let last: AgateUIMessage | undefined;
  for await (const message of readUIMessageStream<AgateUIMessage>({
    stream,
    ...(continued !== undefined ? { message: continued } : {}),
  })) {
    last = message;
  }
  if (last === undefined) throw new Error('the stream built no message');
  return last;
}

/** What useChat's addToolApprovalResponse does to the message (ai's AbstractChat). */
function respond(message: AgateUIMessage, id: string, approved: boolean, reason?: string) {
  return {
    ...message,
    parts: message.parts.map((part) =>
      isToolUIPart(part) && part.state === 'approval-requested' && part.approval.id === id
        ? {
            ...part,
            state: 'approval-responded',
            approval: { ...part.approval, id, approved, reason },
          }
        : part,
    ),
  } as AgateUIMessage;
}

const user: AgateUIMessage = {
  id: 'u1',
  role: 'user',
  parts: [{ type: 'text', text: 'Push main.' }],
};

describe('a held tool call on the web', () => {
  it("is the AI SDK's tool-approval-request; useChat's approval response decides it and the run goes on", async () => {
    pushed.length = 0;
    const store = createMemoryStore();
    const model = scriptedModel([
      { toolCalls: [{ toolCallId: 'push-1', toolName: 'git_push', input: { branch: 'main' } }] },
      'Pushed main.',
    ]);
    const options = {
      model,
      store,
      owner: 'ana@example.com',
      toolApprovals: { by: 'ana@example.com' },
    };

    const first = await openChatSession(<GitAgent />, { id: 'chat-1', messages: [user] }, options);
    const message = await lastMessage(
      toUIMessageStream(first.session, { messageId: 'a1', onFinish: first.save }),
    );
    const tool = message.parts.find(isToolUIPart);
    expect(tool).toMatchObject({
      type: 'tool-git_push',
      toolCallId: 'push-1',
      state: 'approval-requested',
      input: { branch: 'main' },
      approval: { id: 'push-1' },
    });
    expect(pushed).toEqual([]);

    const answered = respond(message, 'push-1', true, 'release day');
    // What makes useChat send automatically (sendAutomaticallyWhen).
    expect(
      lastAssistantMessageIsCompleteWithApprovalResponses({ messages: [user, answered] }),
    ).toBe(true);
    const second = await openChatSession(
      <GitAgent />,
      { id: 'chat-1', messages: [user, answered] },
      options,
    );
    // useChat continues the last assistant message with the next response.
    const done = await lastMessage(
      toUIMessageStream(second.session, { onFinish: second.save }),
      answered,
    );
    expect(pushed).toEqual(['main']);
    expect(done.parts.find(isToolUIPart)).toMatchObject({
      toolCallId: 'push-1',
      state: 'output-available',
      output: 'pushed main',
    });
    expect(done.parts.some((p) => p.type === 'text' && p.text === 'Pushed main.')).toBe(true);
    const ledger = second.session.state.guards.approvals.ledger;
    expect(ledger.at(-2)).toMatchObject({ kind: 'tool-approved', by: 'ana@example.com' });
    // Spent as it ran: one approval, one execution.
    expect(ledger.at(-1)).toMatchObject({ kind: 'tool-executed', by: 'runtime' });
  });

  it('a denial from the page reaches the model; without toolApprovals the request is refused', async () => {
    pushed.length = 0;
    const store = createMemoryStore();
    const model = scriptedModel([
      { toolCalls: [{ toolCallId: 'push-2', toolName: 'git_push', input: { branch: 'main' } }] },
      'Not pushed.',
    ]);
    const first = await openChatSession(
      <GitAgent />,
      { id: 'chat-2', messages: [user] },
      { model, store, owner: 'ana' },
    );
    const message = await lastMessage(toUIMessageStream(first.session, { onFinish: first.save }));
    const answered = respond(message, 'push-2', false, 'freeze week');
    await expect(
      openChatSession(
        <GitAgent />,
        { id: 'chat-2', messages: [user, answered] },
        { model, store, owner: 'ana' },
      ),
    ).rejects.toThrow(ChatRequestError);

    const second = await openChatSession(
      <GitAgent />,
      { id: 'chat-2', messages: [user, answered] },
      { model, store, owner: 'ana', toolApprovals: { by: 'ana' } },
    );
    const done = await lastMessage(
      toUIMessageStream(second.session, { onFinish: second.save }),
      answered,
    );
    expect(done.parts.find(isToolUIPart)).toMatchObject({
      toolCallId: 'push-2',
      state: 'output-denied',
      approval: { approved: false, reason: 'freeze week' },
    });
    expect(pushed).toEqual([]);
    const sent = JSON.stringify(model.calls.at(-1)?.prompt);
    expect(sent).toContain('denied by ana');
    expect(sent).toContain('freeze week');
  });
});
