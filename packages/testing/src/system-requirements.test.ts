import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandExists, requireSystem, skipSummary } from './system-requirements.js';

describe('requireSystem', () => {
  it('is true for a command on PATH and records nothing', () => {
    expect(commandExists('sh')).toBe(true);
    expect(requireSystem({ tests: 'shell tests', needs: 'sh', enable: 'n/a', command: 'sh' })).toBe(
      true,
    );
  });

  it('records one skip line for a missing command, in the file the global setup reads', () => {
    const file = process.env.AGATE_TEST_SKIPS_FILE;
    expect(file, 'the global setup sets the skips file for every worker').toBeTypeOf('string');
    const ok = requireSystem({
      tests: 'self-test of requireSystem',
      needs: 'no-such-command-agate',
      enable: 'nothing to enable',
      command: 'no-such-command-agate',
    });
    expect(ok).toBe(false);
    const recorded = readFileSync(file as string, 'utf8');
    expect(recorded).toContain('"tests":"self-test of requireSystem"');
    // Remove our own line again so the real run's summary names only real skips.
    const rest = recorded
      .split('\n')
      .filter((l) => !l.includes('self-test of requireSystem'))
      .join('\n');
    writeFileSync(file as string, rest);
  });

  it('a probe that throws counts as missing', () => {
    const ok = requireSystem({
      tests: 'probe self-test',
      needs: 'x',
      enable: 'y',
      probe: () => {
        throw new Error('no');
      },
    });
    expect(ok).toBe(false);
    const file = process.env.AGATE_TEST_SKIPS_FILE as string;
    const rest = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => !l.includes('probe self-test'))
      .join('\n');
    writeFileSync(file, rest);
  });
});

describe('skipSummary', () => {
  it('is one line naming each skipped suite once, with how to enable it', () => {
    const line = (tests: string, needs: string, enable: string) =>
      JSON.stringify({ tests, needs, enable });
    const summary = skipSummary([
      line('sandbox escape suite', 'bubblewrap (bwrap)', 'apt-get install -y bubblewrap'),
      line('sandbox escape suite', 'bubblewrap (bwrap)', 'apt-get install -y bubblewrap'),
      line('postgres store tests', 'PostgreSQL 15', 'apt-get install -y postgresql'),
      '{"torn',
      '',
    ]);
    expect(summary).toBe(
      'Skipped because system packages are missing: sandbox escape suite (bubblewrap (bwrap) missing; to enable: apt-get install -y bubblewrap); postgres store tests (PostgreSQL 15 missing; to enable: apt-get install -y postgresql). Or run bash .ci/run, which installs them.',
    );
    expect(summary?.includes('\n')).toBe(false);
    expect(skipSummary([''])).toBeUndefined();
  });
});
