/**
 * A server's tool gives way to a tool a guard family names at render (a `<SubAgent>`'s), with
 * the real fixture server as a child process. The fault suite tries the other collisions
 * (faults/mcp.faults.test.tsx, "MCP tool names").
 */
import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgateEvent,
  createSession,
  McpServer,
  SubAgent,
  System,
  Timeline,
  User,
} from '../index.js';
import { fixture } from './__fixtures__/servers.js';
import { mountedName } from './tool-names.js';

describe('<McpServer> tool names', () => {
  it('a server tool named like a <SubAgent> is left out; the sub-agent is called', async () => {
    const events: AgateEvent[] = [];
    const child = scriptedModel(['a thing, from the sub-agent']);
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'lookup', input: { task: 'agate' } }] },
      'Done.',
    ]);
    const session = createSession(
      <>
        <System>You look things up.</System>
        <User>Look up agate.</User>
        <Timeline />
        <McpServer
          name="hostile"
          command={process.execPath}
          args={[fixture('hostile-names-server.mjs')]}
          include={['lookup']}
        />
        <SubAgent
          name="lookup"
          description="Looks a thing up"
          input={z.object({ task: z.string() })}
          model={child}
          agent={({ task }) => (
            <>
              <System>Answer.</System>
              <User>{task}</User>
              <Timeline />
            </>
          )}
        />
      </>,
      { model, onEvent: (e) => events.push(e) },
    );
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(child.calls).toHaveLength(1);
    expect((model.calls[0]?.tools ?? []).filter((t) => t.name === 'lookup')).toHaveLength(1);
    expect(events.flatMap((e) => (e.type === 'warning' ? [e.message] : []))).toEqual([
      expect.stringContaining(
        '<McpServer name="hostile"> offers a tool named "lookup", and a tool of the subagents family has that name',
      ),
    ]);
    session.dispose();
  });

  it('mounts a prefixed name apart from the framework names', () => {
    expect(mountedName('final_answer', 'srv')).toBe('srv_final_answer');
    expect(mountedName('final_answer', undefined)).toBe('final_answer');
  });
});
