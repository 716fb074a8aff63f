import { describe, expect, it } from 'vitest';
import type { ToolCallOutcome } from '../../guard-seam/guard-family.js';
import type { CompiledTool } from '../../renderer/compiled-context.js';
import type { EvidenceSpec } from './evidence-spec.js';
import { receiptOf } from './receipt.js';

function outcome(
  evidence: EvidenceSpec<{ cmd: string }, { exitCode: number }> | undefined,
  over: Partial<ToolCallOutcome> = {},
): ToolCallOutcome {
  const tool: CompiledTool = {
    name: 'shell',
    inputSchema: {} as CompiledTool['inputSchema'],
    source: 'component',
    ...(evidence !== undefined ? { guard: { evidence: evidence as never } } : {}),
  };
  return {
    call: { toolCallId: 'c1', toolName: 'shell', input: { cmd: 'npm test' } },
    tool,
    result: { toolCallId: 'c1', toolName: 'shell', output: null, isError: false },
    executed: true,
    input: { cmd: 'npm test' },
    output: { exitCode: 0 },
    ...over,
  };
}

const spec: EvidenceSpec<{ cmd: string }, { exitCode: number }> = {
  kind: 'command',
  command: (i) => i.cmd,
  ok: (o) => o.exitCode === 0,
};

describe('receiptOf', () => {
  it('a call that never ran has no receipt', () => {
    expect(receiptOf(outcome(spec, { executed: false }), 1)).toEqual({});
  });

  it('succeeded: returned and ok(output)', () => {
    expect(receiptOf(outcome(spec), 4).receipt).toEqual({
      tick: 4,
      toolCallId: 'c1',
      toolName: 'shell',
      input: { cmd: 'npm test' },
      ok: true,
      evidence: { kind: 'command', command: 'npm test' },
    });
  });

  it('failed: ok(output) false, or execute threw', () => {
    expect(receiptOf(outcome(spec, { output: { exitCode: 1 } }), 1).receipt?.ok).toBe(false);
    const threw = outcome(spec, {
      error: new Error('boom'),
      result: { toolCallId: 'c1', toolName: 'shell', output: 'failed', isError: true },
    });
    expect(receiptOf(threw, 1).receipt).toMatchObject({ ok: false, evidence: { kind: 'command' } });
  });

  it('a tool without an evidence prop still gets a receipt, with no evidence', () => {
    expect(receiptOf(outcome(undefined), 1).receipt).toMatchObject({ ok: true });
    expect(receiptOf(outcome(undefined), 1).receipt?.evidence).toBeUndefined();
  });

  it('a throwing evidence prop can only take evidence away', () => {
    const badCommand = receiptOf(
      outcome({
        kind: 'command',
        command: () => {
          throw new Error('no');
        },
      }),
      1,
    );
    expect(badCommand.receipt?.evidence).toBeUndefined();
    expect(badCommand.problem).toEqual({ part: 'command', message: 'no' });
    const badOk = receiptOf(
      outcome({
        kind: 'command',
        command: (i) => i.cmd,
        ok: () => {
          throw new Error('?');
        },
      }),
      1,
    );
    expect(badOk.receipt?.ok).toBe(false);
    expect(badOk.problem?.part).toBe('ok');
  });
});
