import { describe, expect, it } from 'vitest';
import { normalizeFilePath } from './phase-ledger.js';
import { type ReplayStep, replayPhaseGates, UnmappedToolsError } from './replay-phase-gates.js';

/** Issue 26.6: a replay that tells the truth about what it could not judge. */
const ok = { exitCode: 0, output: '' };
const read: ReplayStep = { tool: 'bash', input: { command: 'cat src/a.py' }, result: ok };
const sedEdit = (path: string): ReplayStep => ({
  tool: 'bash',
  input: { command: `sed -i 's/-/+/' ${path}` },
  result: ok,
});
const tests: ReplayStep = {
  tool: 'bash',
  input: { command: 'pytest' },
  result: { exitCode: 0, output: '3 passed' },
};
const editor = (path: string): ReplayStep => ({
  tool: 'str_replace_editor',
  input: { command: 'str_replace', path, old_str: 'a', new_str: 'b' },
  result: ok,
});

describe('replayPhaseGates: unmapped tools', () => {
  const run = [read, editor('/repo/src/a.py'), editor('/repo/src/a.py'), tests, { tool: 'think' }];

  it('lists every tool the mapping misses, with counts, most called first', () => {
    const result = replayPhaseGates(run, { tools: { bash: 'shell' } });
    expect(result.unmappedTools).toEqual([
      { tool: 'str_replace_editor', calls: 2 },
      { tool: 'think', calls: 1 },
    ]);
    // Unmapped, the editor changed nothing as far as the replay can tell.
    expect(result.verdict).toBe('no-change');
  });

  it('throws naming them with strict: true', () => {
    const attempt = () => replayPhaseGates(run, { tools: { bash: 'shell' }, strict: true });
    expect(attempt).toThrow(UnmappedToolsError);
    expect(attempt).toThrow('"str_replace_editor" (2 calls), "think" (1 call)');
  });

  it("with the editor mapped as a shell tool (OpenHands' str_replace_editor), the change counts", () => {
    const tools = { bash: 'shell', str_replace_editor: 'shell', think: 'other' } as const;
    const result = replayPhaseGates(run, { tools, strict: true });
    expect(result.unmappedTools).toEqual([]);
    expect(result.verdict).toBe('verified');
  });
});

describe('replayPhaseGates: verdict', () => {
  const tools = { bash: 'shell' } as const;
  it('verified: changed, then a verification that ran', () => {
    expect(replayPhaseGates([read, sedEdit('src/a.py'), tests], { tools }).verdict).toBe(
      'verified',
    );
  });
  it('unverified: changed and never ran the tests', () => {
    const result = replayPhaseGates([read, sedEdit('src/a.py')], { tools });
    expect(result.verdict).toBe('unverified');
    expect(result.phases.verification).toBe(false);
  });
  it('no-change: read only (verification is false too, but nothing was left unchecked)', () => {
    const result = replayPhaseGates([read], { tools });
    expect(result.verdict).toBe('no-change');
    expect(result.phases.verification).toBe(false);
  });
});

describe('replayPhaseGates: one file, however it is spelled', () => {
  it('./a.py, a.py and <root>/a.py are one path', () => {
    const result = replayPhaseGates(
      [sedEdit('./src/a.py'), sedEdit('src//a.py'), sedEdit('/repo/src/a.py')],
      { tools: { bash: 'shell' }, root: '/repo' },
    );
    expect(result.unverified).toEqual(['src/a.py']);
  });

  it('normalizeFilePath', () => {
    expect(normalizeFilePath('./a.py')).toBe('a.py');
    expect(normalizeFilePath('src/../src/./a.py')).toBe('src/a.py');
    expect(normalizeFilePath('/repo/src/a.py', '/repo')).toBe('src/a.py');
    expect(normalizeFilePath('/repo/src/a.py', '/repo/')).toBe('src/a.py');
    expect(normalizeFilePath('/elsewhere/a.py', '/repo')).toBe('/elsewhere/a.py');
    expect(normalizeFilePath('dir/')).toBe('dir');
  });
});
