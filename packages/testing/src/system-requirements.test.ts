import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  commandExists,
  REQUIRE_SYSTEM_ENV,
  requireSystem,
  SystemRequiredError,
  skipSummary,
  systemRequired,
} from './system-requirements.js';

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

describe(`requireSystem with ${REQUIRE_SYSTEM_ENV}=1 (what .ci/run sets)`, () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  const skipsFile = () => readFileSync(process.env.AGATE_TEST_SKIPS_FILE as string, 'utf8');

  it('throws a SystemRequiredError naming the Debian package for a missing binary, every time, and records no skip', () => {
    vi.stubEnv(REQUIRE_SYSTEM_ENV, '1');
    const requirement = {
      tests: 'strict self-test of requireSystem',
      needs: 'bubblewrap (bwrap)',
      enable: 'apt-get install -y bubblewrap',
      debianPackage: 'bubblewrap',
      command: 'no-such-bwrap-agate',
    };
    const thrown = (() => {
      try {
        requireSystem(requirement);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(SystemRequiredError);
    expect(thrown).toMatchObject({
      name: 'SystemRequiredError',
      tests: 'strict self-test of requireSystem',
      debianPackage: 'bubblewrap',
      message:
        'strict self-test of requireSystem needs bubblewrap (bwrap), which is missing, and AGATE_REQUIRE_SYSTEM=1 forbids skipping: install the Debian package bubblewrap (apt-get install -y bubblewrap).',
    });
    // A second suite needing the same part fails too (the answer is cached, the failure is not).
    expect(() => requireSystem(requirement)).toThrow(SystemRequiredError);
    expect(skipsFile()).not.toContain('strict self-test of requireSystem');
  });

  it('a probe that fails (bwrap present but no user namespaces) throws as well', () => {
    vi.stubEnv(REQUIRE_SYSTEM_ENV, '1');
    expect(() =>
      requireSystem({
        tests: 'strict probe self-test',
        needs: 'PostgreSQL (initdb, pg_ctl)',
        enable: 'apt-get install -y postgresql',
        debianPackage: 'postgresql',
        probe: () => false,
      }),
    ).toThrow(/install the Debian package postgresql/);
  });

  it('a part that is there passes, and a requirement with no Debian package still skips', () => {
    vi.stubEnv(REQUIRE_SYSTEM_ENV, '1');
    expect(
      requireSystem({
        tests: 'strict shell self-test',
        needs: 'sh',
        enable: 'n/a',
        debianPackage: 'dash',
        command: 'sh',
      }),
    ).toBe(true);
    const ok = requireSystem({
      tests: 'strict self-test without a package',
      needs: 'running as nobody',
      enable: 'n/a',
      probe: () => false,
    });
    expect(ok).toBe(false);
    const file = process.env.AGATE_TEST_SKIPS_FILE as string;
    expect(skipsFile()).toContain('strict self-test without a package');
    writeFileSync(
      file,
      skipsFile()
        .split('\n')
        .filter((l) => !l.includes('strict self-test without a package'))
        .join('\n'),
    );
  });

  it('without the variable (a local run) the same missing binary skips with its one line', () => {
    vi.stubEnv(REQUIRE_SYSTEM_ENV, '');
    expect(systemRequired()).toBe(false);
    expect(systemRequired({ [REQUIRE_SYSTEM_ENV]: '0' })).toBe(false);
    expect(systemRequired({ [REQUIRE_SYSTEM_ENV]: '1' })).toBe(true);
    const ok = requireSystem({
      tests: 'lenient self-test of requireSystem',
      needs: 'Chromium (/usr/bin/chromium)',
      enable: 'apt-get install -y chromium',
      debianPackage: 'chromium',
      command: '/no/such/chromium-agate',
    });
    expect(ok).toBe(false);
    const file = process.env.AGATE_TEST_SKIPS_FILE as string;
    expect(skipsFile()).toContain('lenient self-test of requireSystem');
    writeFileSync(
      file,
      skipsFile()
        .split('\n')
        .filter((l) => !l.includes('lenient self-test of requireSystem'))
        .join('\n'),
    );
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
