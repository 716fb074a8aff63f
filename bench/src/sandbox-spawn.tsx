import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Shell } from '@agate/core';
import type { CompiledTool } from '@agate/core/guards';
import { renderContext } from '@agate/testing';
import { type Summary, summarize } from './stats.js';

export interface SandboxSpawnResult {
  reps: number;
  /** `true` through `<Shell>`'s bubblewrap sandbox, ms per command. */
  sandboxed: Summary;
  /** `true` through `<Shell sandbox={false}>` (a plain spawn of `sh -c`), ms per command. */
  host: Summary;
  /** Sandboxed − unsandboxed, per repetition (they alternate). */
  extra: Summary;
  /** The median of `extra` within each block of consecutive pairs: the spread the target is judged on. */
  blocks: Summary;
}

/** Pairs per block of the judged spread: one slow spawn moves a block's median, not a verdict. */
const BLOCK = 8;

function shellTool(cwd: string, sandboxed: boolean): CompiledTool {
  const context = renderContext(
    sandboxed ? <Shell cwd={cwd} /> : <Shell cwd={cwd} sandbox={false} />,
  );
  const tool = context.tools.find((t) => t.name === 'bash');
  if (tool?.execute === undefined) throw new Error('<Shell> rendered no bash tool');
  return tool;
}

async function timeOnce(tool: CompiledTool): Promise<number> {
  const started = performance.now();
  const result = (await tool.execute!({ command: 'true' } as never, {
    toolCallId: 'bench',
    abortSignal: new AbortController().signal,
    tick: 1,
    messages: [],
  })) as { exitCode: number | null };
  const elapsed = performance.now() - started;
  if (result.exitCode !== 0) throw new Error(`true exited ${result.exitCode}`);
  return elapsed;
}

/**
 * The cost of the sandbox on one command: `true` run through `<Shell>` with the default
 * sandbox and with `sandbox={false}` (the same code path, a plain `sh -c` spawn), alternating,
 * wall time per command. Undefined when bubblewrap cannot start here.
 */
export async function measureSandboxSpawn(reps: number): Promise<SandboxSpawnResult | undefined> {
  const cwd = mkdtempSync(join(tmpdir(), 'agate-bench-shell-'));
  try {
    const sandboxed = shellTool(cwd, true);
    const host = shellTool(cwd, false);
    try {
      await timeOnce(sandboxed);
    } catch {
      return undefined;
    }
    for (let i = 0; i < 3; i++) {
      await timeOnce(sandboxed);
      await timeOnce(host);
    }
    const s: number[] = [];
    const h: number[] = [];
    for (let i = 0; i < reps; i++) {
      // Alternate which goes first, so neither always follows the other's cleanup.
      if (i % 2 === 0) {
        s.push(await timeOnce(sandboxed));
        h.push(await timeOnce(host));
      } else {
        h.push(await timeOnce(host));
        s.push(await timeOnce(sandboxed));
      }
    }
    const extra = s.map((v, i) => v - h[i]!);
    const blocks: number[] = [];
    for (let i = 0; i + BLOCK <= extra.length; i += BLOCK) {
      blocks.push(summarize(extra.slice(i, i + BLOCK)).median);
    }
    return {
      reps,
      sandboxed: summarize(s),
      host: summarize(h),
      extra: summarize(extra),
      blocks: summarize(blocks.length > 0 ? blocks : extra),
    };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

export const SANDBOX_EXTRA_TARGET_MS = 30;
