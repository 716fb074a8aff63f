import { describe, expect, it } from 'vitest';
import { createLedger, type ReceiptInput } from './evidence-ledger.js';
import { normalizeCommand, normalizePath, textKey } from './normalize.js';

const receipt = (over: Partial<ReceiptInput>): ReceiptInput => ({
  tick: 1,
  toolCallId: 'c',
  toolName: 'shell',
  input: {},
  ok: true,
  ...over,
});
const command = (cmd: string, ok = true) =>
  receipt({ ok, evidence: { kind: 'command', command: cmd } });

describe('normalization', () => {
  it('commands compare with whitespace collapsed', () => {
    expect(normalizeCommand('  npm   test\t--  -x\n')).toBe('npm test -- -x');
  });

  it.each([
    ['./a/b', 'a/b'],
    ['a//b', 'a/b'],
    ['a/./b', 'a/b'],
    ['a/x/../b', 'a/b'],
    ['a\\b', 'a/b'],
    ['a/b/', 'a/b'],
    [' ./a ', 'a'],
    ['.', '.'],
    ['/abs//x', '/abs/x'],
    ['../up', '../up'],
  ])('path %j is %j', (path, expected) => {
    expect(normalizePath(path)).toBe(expected);
  });

  it('item texts compare trimmed, whitespace collapsed, case-folded', () => {
    expect(textKey('  Run  THE tests ')).toBe('run the tests');
  });
});

describe('createLedger', () => {
  it('records receipts in order, numbered from 1', () => {
    const ledger = createLedger();
    expect(ledger.record(command('a')).seq).toBe(1);
    expect(ledger.record(receipt({ toolName: 'other' })).seq).toBe(2);
    expect(ledger.receipts().map((r) => r.toolName)).toEqual(['shell', 'other']);
  });

  it('findCommand: missing, ok, failed; whitespace collapsed; the latest run decides', () => {
    const ledger = createLedger();
    expect(ledger.findCommand('npm test')).toEqual({ status: 'missing' });
    ledger.record(command('npm  test', false));
    expect(ledger.findCommand('npm test').status).toBe('failed');
    ledger.record(command('npm test'));
    expect(ledger.findCommand(' npm\ttest ').status).toBe('ok');
    ledger.record(command('npm test', false));
    expect(ledger.findCommand('npm test').status).toBe('failed');
    // A receipt without command evidence never counts, whatever its input.
    ledger.record(receipt({ toolName: 'npm test', input: { cmd: 'x' } }));
    expect(ledger.findCommand('x')).toEqual({ status: 'missing' });
  });

  it('findPaths: by kind, normalized, failed only when no receipt succeeded', () => {
    const ledger = createLedger();
    ledger.record(receipt({ evidence: { kind: 'read', paths: ['./src/a.ts'] } }));
    ledger.record(receipt({ ok: false, evidence: { kind: 'edit', paths: ['src/a.ts', 'b.ts'] } }));
    ledger.record(receipt({ evidence: { kind: 'edit', paths: ['c//d.ts'] } }));
    ledger.record(receipt({ ok: false, evidence: { kind: 'read', paths: ['c/d.ts'] } }));
    expect(ledger.findPaths('read', ['src/./a.ts', 'b.ts', 'c/d.ts', 'e.ts'])).toEqual({
      found: ['src/a.ts'],
      failed: ['c/d.ts'],
      missing: ['b.ts', 'e.ts'],
    });
    expect(ledger.findPaths('edit', ['src/a.ts', 'c/d.ts'])).toEqual({
      found: ['c/d.ts'],
      failed: ['src/a.ts'],
      missing: [],
    });
    expect(ledger.findPaths(['read', 'edit'], ['src/a.ts', 'c/d.ts', 'a/../b.ts'])).toEqual({
      found: ['src/a.ts', 'c/d.ts'],
      failed: ['b.ts'],
      missing: [],
    });
  });

  it('keeps sign-offs in order with receipts; clear() starts a new turn', () => {
    const ledger = createLedger();
    const evidence = { verified: true, command: 'x', tick: 1 };
    ledger.record(command('x'));
    const entry = {
      tick: 1,
      content: 'Run tests',
      activeForm: 'Running tests',
      number: 1,
      evidence,
    };
    ledger.signOff(entry);
    expect(ledger.signOffs()).toEqual([{ ...entry, seq: 2 }]);
    ledger.clear();
    expect(ledger.receipts()).toEqual([]);
    expect(ledger.signOffs()).toEqual([]);
    expect(ledger.findCommand('x').status).toBe('missing');
  });

  it('is capped: the oldest receipts go first', () => {
    const ledger = createLedger({ cap: 3 });
    for (let i = 0; i < 20; i++) ledger.record(command(`c${i}`));
    expect(ledger.receipts().map((r) => r.seq)).toEqual([18, 19, 20]);
    expect(ledger.findCommand('c19').status).toBe('ok');
    expect(ledger.findCommand('c0').status).toBe('missing');
  });
});
