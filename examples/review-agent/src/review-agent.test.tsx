import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '@agate/cli';
import { type AgateEvent, run } from '@agate/core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ReviewAgent } from './agent.js';
import { offlineModel } from './offline-model.js';
import { createWorkspace, FIXED_MATH } from './workspace.js';

describe('review agent (offline)', () => {
  it('fixes the bug; the reviewer is held until it ran the tests; the docs agent runs beside it', async () => {
    const root = await createWorkspace();
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const events: AgateEvent[] = [];
    const result = await run(<ReviewAgent root={root} />, {
      model: offlineModel(),
      maxTicks: 10,
      onEvent: (e) => events.push(e),
    });
    expect(result.status).toBe('completed');
    expect(await readFile(join(root, 'math.js'), 'utf8')).toBe(FIXED_MATH);

    // The reviewer tried to approve before testing: its gate refused, then it ran the tests.
    const review = result.subAgents?.call_review;
    expect(review?.status).toBe('completed');
    expect(review?.output).toEqual({ verdict: 'approve', testsPassed: true, issues: [] });
    const refused = events.find(
      (e) => e.type === 'exit:blocked' && e.path?.[0] === 'reviewer#call_review',
    );
    expect(refused?.type === 'exit:blocked' && refused.gates).toEqual(['verification']);
    expect(
      events.some(
        (e) =>
          e.type === 'gate:cleared' && e.path?.[0] === 'reviewer#call_review' && e.by === 'host',
      ),
    ).toBe(true);
    expect(result.subAgents?.call_docs?.text).toBe(
      'The README is accurate: add(a, b) adds two numbers.',
    );

    // Both ran at once: the docs agent started before the reviewer ended.
    const at = (type: string, segment: string) =>
      events.findIndex((e) => e.type === type && e.path?.[0] === segment);
    expect(at('run:start', 'docs#call_docs')).toBeLessThan(at('run:end', 'reviewer#call_review'));
    // Results in call order, the reviewer's verdict as its tool result.
    const own = events.filter((e) => e.type === 'tool:result' && e.path?.length === 0);
    expect(own.map((e) => e.type === 'tool:result' && e.toolName)).toEqual([
      'read_file',
      'write_file',
      'reviewer',
      'docs',
    ]);
    // The children's tokens count in the parent's usage.
    const parentOnly = events
      .filter((e) => e.type === 'model:response' && e.path?.length === 0)
      .reduce((n, e) => n + (e.type === 'model:response' ? e.usage.totalTokens : 0), 0);
    expect(result.usage.totalTokens).toBeGreaterThan(parentOnly);
  });

  it('runs under `agate run`, with the children indented under their calls', async () => {
    const before = new Set(await readdir(tmpdir()));
    onTestFinished(async () => {
      for (const name of await readdir(tmpdir())) {
        if (name.startsWith('agate-review-agent-') && !before.has(name)) {
          await rm(join(tmpdir(), name), { recursive: true, force: true });
        }
      }
    });
    let out = '';
    let err = '';
    const code = await main(['run', fileURLToPath(new URL('./demo.tsx', import.meta.url))], {
      out: (text) => {
        out += text;
      },
      err: (text) => {
        err += text;
      },
      env: {},
      isTTY: false,
      onInterrupt: () => () => {},
    });
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('    [reviewer#call_review] sub-agent started');
    expect(out).toContain('    [reviewer#call_review] exit refused:');
    expect(out).toContain('    [docs#call_docs] sub-agent ended completed');
    expect(out).toMatch(/status: completed\n/);
  });
});
