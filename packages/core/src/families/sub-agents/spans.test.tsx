import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { run } from '../../index.js';
import { formatSpanTree, memoryTracing } from '../../telemetry/__fixtures__/span-tree.js';
import { Parent } from './__fixtures__/agents.js';

describe('sub-agent spans', () => {
  it("nest the child's run, invoke_agent <name>, under the parent's execute_tool <name>", async () => {
    const { exporter, tracer } = memoryTracing();
    const child = scriptedModel(
      [
        {
          toolCalls: [{ toolName: 'run_tests', input: {}, toolCallId: 'c1' }],
          usage: { inputTokens: 10, outputTokens: 2 },
        },
        { text: 'Looks good.', usage: { inputTokens: 12, outputTokens: 3 } },
      ],
      { modelId: 'child-model' },
    );
    const parent = scriptedModel(
      [
        {
          toolCalls: [{ toolName: 'reviewer', input: { task: 'review' }, toolCallId: 'call_3' }],
          usage: { inputTokens: 20, outputTokens: 4 },
        },
        { text: 'Done.', usage: { inputTokens: 30, outputTokens: 5 } },
      ],
      { modelId: 'parent-model' },
    );
    const result = await run(<Parent kind="plain" childModel={child} />, {
      model: parent,
      id: 'parent',
      telemetry: { tracer },
    });
    expect(result.status).toBe('completed');
    const tree = formatSpanTree(exporter.getFinishedSpans());
    await expect(tree).toMatchFileSnapshot('./__snapshots__/sub-agent.spans.txt');
    // The shape, independent of the attributes the snapshot shows.
    const names = tree
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('·') && !line.trimStart().startsWith('!'))
      .map((line) => line.replace(/ \(.*$/, ''));
    const at = (name: string) => names.findIndex((n) => n.trim() === name);
    const depth = (name: string) => (names[at(name)]?.length ?? 0) - name.length;
    expect(at('execute_tool reviewer')).toBeLessThan(at('invoke_agent reviewer'));
    expect(depth('invoke_agent reviewer')).toBe(depth('execute_tool reviewer') + 2);
    expect(depth('execute_tool run_tests')).toBeGreaterThan(depth('invoke_agent reviewer'));
  });
});
