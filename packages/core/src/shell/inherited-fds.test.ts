import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inheritedFds, withInheritedFdsClosed } from './inherited-fds.js';
import { SandboxUnavailableError } from './shell-errors.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A /proc/self look-alike: `fd/N` entries and `fdinfo/N` with the given octal flags. */
function procWith(fds: Record<string, string | undefined>): string {
  const dir = mkdtempSync(join(tmpdir(), 'agate-fds-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'fd'));
  mkdirSync(join(dir, 'fdinfo'));
  for (const [fd, flags] of Object.entries(fds)) {
    writeFileSync(join(dir, 'fd', fd), '');
    // undefined: closed between the listing and the read.
    if (flags !== undefined) {
      writeFileSync(join(dir, 'fdinfo', fd), `pos:\t0\nflags:\t${flags}\nmnt_id:\t15\nino:\t1\n`);
    }
  }
  return dir;
}

describe('inheritedFds', () => {
  it('lists the descriptors from `from` on without close-on-exec, in order', () => {
    const proc = procWith({
      '0': '02',
      '1': '01',
      '7': '02',
      '9': '02000002',
      '12': '04002',
      '251': '02',
      '300': '02004000',
      '40': undefined,
    });
    expect(inheritedFds(9, proc)).toEqual([12, 251]);
    expect(inheritedFds(0, proc)).toEqual([0, 1, 7, 12, 251]);
  });

  it('counts a descriptor whose flags it cannot read as inherited', () => {
    const proc = procWith({ '20': 'garbage' });
    expect(inheritedFds(3, proc)).toEqual([20]);
  });

  it('fails closed when the descriptors cannot be listed', () => {
    expect(() => inheritedFds(3, '/nonexistent-proc')).toThrow(SandboxUnavailableError);
  });
});

describe('withInheritedFdsClosed', () => {
  it('fails closed on an architecture whose close(2) number it does not know', () => {
    expect(() => withInheritedFdsClosed('/bin/sh', [], [251], 'riscv64')).toThrow(
      SandboxUnavailableError,
    );
    expect(withInheritedFdsClosed('/bin/sh', [], [], 'riscv64')).toEqual(['/bin/sh', []]);
  });

  it('runs the program as it is when nothing leaked (no perl)', () => {
    expect(withInheritedFdsClosed('/bin/sh', ['-c', 'x'], [])).toEqual(['/bin/sh', ['-c', 'x']]);
  });

  it('closes the listed descriptors, then runs the program', () => {
    const [file, args] = withInheritedFdsClosed(
      '/bin/sh',
      ['-c', 'ls /proc/self/fd | sort -n | tr "\\n" " "'],
      [12, 251],
    );
    const stdio: Array<'ignore' | 'pipe'> = Array.from({ length: 252 }, () => 'ignore');
    stdio[1] = 'pipe';
    stdio[12] = 'pipe';
    stdio[251] = 'pipe';
    const run = spawnSync(file, args, { stdio, encoding: 'utf8' });
    expect(run.status, String(run.stderr)).toBe(0);
    expect(String(run.stdout).trim().split(' ')).not.toContain('251');
    expect(String(run.stdout).trim().split(' ')).not.toContain('12');
  });

  it('exits 127 with a message when the program cannot start', () => {
    const [file, args] = withInheritedFdsClosed('/nonexistent/sh', [], [251]);
    const run = spawnSync(file, args, { encoding: 'utf8' });
    expect(run.status).toBe(127);
    expect(run.stderr).toContain('agate-sandbox: cannot start /nonexistent/sh');
  });
});
