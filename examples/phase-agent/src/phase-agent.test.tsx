import { spawnSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgateEvent } from '@agate/core';
import { requireSystem } from '@agate/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createRepo, runShellAgent } from './shell-agent.js';
import { runWeakModel } from './weak-model.js';

describe('phase-agent example: a weak model', () => {
  it('without phase gates it declares victory after looking around', async () => {
    const { result, files } = await runWeakModel('none');
    expect(result.status).toBe('completed');
    expect(result.ticks).toBe(3);
    expect(files.get('src/math.js')).toContain('a - b');
  });

  for (const mode of ['warn', 'block'] as const) {
    it(`with mode="${mode}" the warnings lead it through search, read, change and verify`, async () => {
      const events: AgateEvent[] = [];
      const { result, files } = await runWeakModel(mode, (e) => events.push(e));
      expect(result.status).toBe('completed');
      expect(result.phase?.readiness).toBe(true);
      expect(files.get('src/math.js')).toContain('a + b');
      expect(events.some((e) => e.type === 'phase:warning' && e.kind === 'no-progress')).toBe(true);
    });
  }
});

// The bash agent's commands run in <Shell>'s bubblewrap sandbox.
const sandboxWorks = requireSystem({
  tests: 'sandboxed shell examples',
  needs: 'bubblewrap (bwrap) with user namespaces',
  enable: 'apt-get install -y bubblewrap',
  debianPackage: 'bubblewrap',
  command: 'bwrap',
  probe: () =>
    spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--', '/bin/true']).status === 0,
});

describe.skipIf(!sandboxWorks)('phase-agent example: a bash-only agent in block mode', () => {
  let repo: string | undefined;
  afterEach(async () => {
    if (repo) await rm(repo, { recursive: true, force: true });
  });

  it('finishes completed after deleting its reproduce script', async () => {
    repo = await createRepo();
    const events: AgateEvent[] = [];
    const result = await runShellAgent(repo, false, (e) => events.push(e));
    expect(result.status).toBe('completed');
    expect(events.some((e) => e.type === 'exit:blocked')).toBe(false);
    expect(await readFile(join(repo, 'math.js'), 'utf8')).toContain('a + b');
  });

  it('is refused once when it edits after its last test, then verifies and finishes', async () => {
    repo = await createRepo();
    const events: AgateEvent[] = [];
    const result = await runShellAgent(repo, true, (e) => events.push(e));
    const refusals = events.filter((e) => e.type === 'exit:blocked');
    expect(refusals).toHaveLength(1);
    expect(refusals[0]?.type === 'exit:blocked' && refusals[0].reasons.join()).toContain('math.js');
    expect(result.status).toBe('completed');
  });
});
