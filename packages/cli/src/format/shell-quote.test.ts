import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellQuote } from './shell-quote.js';

describe('shellQuote', () => {
  it('leaves plain words alone', () => {
    expect(shellQuote('postgres://agate@127.0.0.1:5432/agents')).toBe(
      'postgres://agate@127.0.0.1:5432/agents',
    );
    expect(shellQuote('./sessions')).toBe('./sessions');
  });

  it.each([
    'postgres://a@h/db?sslmode=disable&x=1',
    'dir with space',
    "it's",
    '$(touch /tmp/pwned)',
    '`id`',
    'a;b|c>d',
    '',
  ])('a POSIX shell reads %j back as one word, unchanged', (word) => {
    const echoed = execFileSync('sh', ['-c', `printf %s ${shellQuote(word)}`], {
      encoding: 'utf8',
    });
    expect(echoed).toBe(word);
  });
});
